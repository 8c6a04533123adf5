#pragma once
// `ncclsweep report DIR` on several hosts: the per-node view (each host's ranks against
// the median rank, the slowest host) and the slow groups with the hosts they span.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/report_format.hpp"
#include "results/node_timing.hpp"
#include "results/record.hpp"
#include "results/slow_groups.hpp"

namespace ncclsweep {

struct NodeReport {
  std::string name;
  int ranks = 0;
  double threshold = kSlowShare;
  NodeTimingView nodes;
  int grouped_measurements = 0;  // records on sub-communicator groups
  std::vector<SlowGroup> slow_groups;
};

NodeReport build_node_report(const RunDocument& run, double threshold = kSlowShare);

// Without being asked, the view is shown for runs on more than one host.
bool node_report_by_default(const RunDocument& run);

// "dp group 3 (ranks 3,11,19,27) spans hosts node0,node1: +12.0% against the other
// groups (median of 8 measurements; over 5% in 7)"
std::string slow_group_line(const SlowGroup& group, double threshold);

// table | md | csv | json. Throws UsageError naming the valid formats.
void print_node_report(const NodeReport& report, ReportFormat format, std::ostream& out);

}  // namespace ncclsweep
