#pragma once
// From every rank's records to what a user reads: per host and metric the median over
// the host's ranks and its worst rank; the hosts that stand out from the allocation's
// other hosts; and findings that name each with its likely cause (docs/probe.md).
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "probe/probe_record.hpp"

namespace ncclsweep::probe {

struct HostValue {
  std::string host;
  ProbeMetric metric = ProbeMetric::busy_clock_ghz;
  int ranks = 0;          // measured ranks behind the median
  double median = 0;
  int worst_rank = -1;    // the rank whose value is worst in the metric's direction
  double worst_value = 0;
  double spread = 0;      // the largest record spread among the host's ranks
};

// Hosts in order of first appearance, metrics in enum order; skipped records left out.
std::vector<HostValue> summarise_hosts(const std::vector<ProbeRecord>& records);

// Whether `value` is worse than `baseline` by more than both the metric's tolerance
// (a share of the baseline) and its floor (in the metric's unit).
bool worse_than(const MetricInfo& info, double value, double baseline);

struct Outlier {
  HostValue host;
  double baseline = 0;  // the median over the other hosts, or the reference's value
  std::string against;  // "the other host", "the other hosts' median", "the reference"
};

// Per metric measured on at least two hosts: each host whose worst rank is worse than
// the median of the other hosts' medians (one rank on a shared core is enough to name its
// host). A single host is judged only against a reference (compare).
std::vector<Outlier> outlier_hosts(const std::vector<HostValue>& hosts);

// One warning per outlier: check "probe.<metric>", the host and its worst rank, the
// evidence in numbers and the metric's cause as the fix; merged like doctor's.
std::vector<doctor::Finding> outlier_findings(const std::vector<Outlier>& outliers);

// The distinct hosts the findings name, in order of first appearance.
std::vector<std::string> named_hosts(const std::vector<Outlier>& outliers);

}  // namespace ncclsweep::probe
