#include "report/node_report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/finding.hpp"
#include "core/list_text.hpp"
#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "report/csv_text.hpp"

namespace ncclsweep {
namespace {

std::string excess_text(double excess) { return percent_change(1 + excess); }

std::string share_text(double share) { return printf_text("%.0f%%", share * 100); }

std::string ranks_text(const NodeTiming& n) {
  return doctor::compact_ranks(n.ranks) + " (" + std::to_string(n.ranks.size()) + ")";
}

std::string slowest_line(const NodeReport& report) {
  const NodeTimingView& v = report.nodes;
  if (!v.slowest) return "no measurement has a time for every rank: nothing to compare";
  const NodeTiming& slowest = v.nodes[*v.slowest];
  if (v.nodes.size() < 2) return "one host (" + slowest.host + "): no other host to compare with";
  std::string line = "slowest host: " + slowest.host + ", " + excess_text(v.slowest_vs_other_hosts) +
                     " against the other hosts' median";
  line += v.slowest_stands_out ? " (over the " + share_text(report.threshold) + " threshold)"
                               : ": within " + share_text(report.threshold) + ", no host stands out";
  return line;
}

std::string groups_heading(const NodeReport& report) {
  return "slow groups: slower than the other groups by more than " + share_text(report.threshold);
}

std::string no_slow_groups_line(const NodeReport& report) {
  if (report.grouped_measurements == 0) return "no measurement ran on sub-communicator groups";
  return "none (" + std::to_string(report.grouped_measurements) + " grouped measurements)";
}

void print_text(const NodeReport& report, std::ostream& out, bool markdown) {
  const NodeTimingView& v = report.nodes;
  const std::string h = markdown ? "#### " : "## ";
  out << "\n" << h << "per node: time per call against the median rank (median of " << v.measurements
      << " measurements)\n\n";
  if (markdown) {
    out << "| host | ranks | median rank | slowest rank | which | slowest host in |\n|---|---|---:|---:|---:|---:|\n";
  } else {
    out << printf_text("  %-24s %-16s %12s %12s %6s %16s\n", "host", "ranks", "median rank", "slowest rank", "which",
                       "slowest host in");
  }
  for (std::size_t n = 0; n < v.nodes.size(); ++n) {
    const NodeTiming& node = v.nodes[n];
    const std::string in = std::to_string(node.slowest_in) + " of " + std::to_string(v.measurements);
    const std::string host = node.host + (v.slowest_stands_out && v.slowest == n ? " (slow)" : "");
    const std::string which = node.worst_rank < 0 ? "-" : std::to_string(node.worst_rank);
    if (markdown) {
      out << "| " << host << " | " << ranks_text(node) << " | " << excess_text(node.median_excess) << " | "
          << excess_text(node.worst_excess) << " | " << which << " | " << in << " |\n";
    } else {
      out << printf_text("  %-24s %-16s %12s %12s %6s %16s\n", host.c_str(), ranks_text(node).c_str(),
                         excess_text(node.median_excess).c_str(), excess_text(node.worst_excess).c_str(), which.c_str(),
                         in.c_str());
    }
  }
  out << "\n" << (markdown ? "" : "  ") << slowest_line(report) << "\n";
  out << "\n" << h << groups_heading(report) << "\n\n";
  if (report.slow_groups.empty()) out << (markdown ? "" : "  ") << no_slow_groups_line(report) << "\n";
  for (const SlowGroup& g : report.slow_groups) {
    out << (markdown ? "- " : "  ") << slow_group_line(g, report.threshold) << "\n";
  }
}

// One tidy table: a row per host (view "node") and per slow group (view "slow_group").
void print_csv(const NodeReport& report, std::ostream& out) {
  const NodeTimingView& v = report.nodes;
  out << "view,name,ranks,hosts,measurements,median_excess,worst_excess,worst_rank,slowest_in,slower_in,flag\n";
  for (std::size_t n = 0; n < v.nodes.size(); ++n) {
    const NodeTiming& node = v.nodes[n];
    const std::string flag = v.slowest != n ? "" : v.slowest_stands_out ? "slowest, stands out" : "slowest";
    out << "node," << csv_field(node.host) << ',' << csv_field(doctor::compact_ranks(node.ranks)) << ','
        << csv_field(node.host) << ',' << v.measurements << ',' << csv_number(node.median_excess) << ','
        << csv_number(node.worst_excess) << ',' << node.worst_rank << ',' << node.slowest_in << ",," << csv_field(flag)
        << '\n';
  }
  for (const SlowGroup& g : report.slow_groups) {
    out << "slow_group," << csv_field(std::string(name_of(g.kind)) + " group " + std::to_string(g.colour)) << ','
        << csv_field(g.ranks.empty() ? "" : doctor::compact_ranks(g.ranks)) << ',' << csv_field(join_text(g.hosts, " "))
        << ',' << g.measurements << ',' << csv_number(g.median_excess) << ',' << csv_number(g.worst_excess) << ",,,"
        << g.slower_in << ",slow\n";
  }
}

void print_json(const NodeReport& report, std::ostream& out) {
  const NodeTimingView& v = report.nodes;
  nlohmann::ordered_json j;
  j["name"] = report.name;
  j["ranks"] = report.ranks;
  j["threshold"] = report.threshold;
  j["measurements"] = v.measurements;
  auto& nodes = j["nodes"] = nlohmann::ordered_json::array();
  for (const NodeTiming& n : v.nodes) {
    nodes.push_back({{"host", n.host}, {"ranks", n.ranks}, {"median_excess", n.median_excess},
                     {"worst_excess", n.worst_excess}, {"worst_rank", n.worst_rank}, {"slowest_in", n.slowest_in}});
  }
  j["slowest"] = nullptr;
  if (v.slowest && v.nodes.size() >= 2) {
    j["slowest"] = {{"host", v.nodes[*v.slowest].host}, {"vs_other_hosts", v.slowest_vs_other_hosts},
                    {"stands_out", v.slowest_stands_out}};
  }
  j["grouped_measurements"] = report.grouped_measurements;
  auto& groups = j["slow_groups"] = nlohmann::ordered_json::array();
  for (const SlowGroup& g : report.slow_groups) {
    groups.push_back({{"kind", name_of(g.kind)}, {"size", g.size}, {"colour", g.colour}, {"ranks", g.ranks}, {"hosts", g.hosts},
                      {"measurements", g.measurements}, {"slower_in", g.slower_in},
                      {"median_excess", g.median_excess}, {"worst_excess", g.worst_excess}});
  }
  out << j.dump(2) << "\n";
}

}  // namespace

NodeReport build_node_report(const RunDocument& run, double threshold) {
  NodeReport report;
  report.name = run.name;
  report.ranks = static_cast<int>(run.ranks.size());
  report.threshold = threshold;
  report.nodes = node_timings(run, threshold);
  report.grouped_measurements = static_cast<int>(std::count_if(
      run.records.begin(), run.records.end(), [](const MeasurementRecord& r) { return r.per_communicator.size() >= 2; }));
  report.slow_groups = find_slow_groups(run, threshold);
  return report;
}

bool node_report_by_default(const RunDocument& run) {
  std::vector<std::string> hosts;
  for (const RankEntry& r : run.ranks) {
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  }
  return hosts.size() > 1;
}

std::string slow_group_line(const SlowGroup& group, double threshold) {
  std::string line = std::string(name_of(group.kind)) + " group " + std::to_string(group.colour);
  if (group.ranks.empty()) {
    line += " (ranks unknown: its layout cannot be told from run.json)";
  } else {
    line += " (ranks " + doctor::compact_ranks(group.ranks) + ") spans host" + (group.hosts.size() == 1 ? " " : "s ") +
            join_text(group.hosts, ",");
  }
  return line + ": " + excess_text(group.median_excess) + " against the other groups (median of " +
         std::to_string(group.measurements) + " measurements; over " + share_text(threshold) + " in " +
         std::to_string(group.slower_in) + ")";
}

void print_node_report(const NodeReport& report, ReportFormat format, std::ostream& out) {
  switch (format) {
    case ReportFormat::table: return print_text(report, out, false);
    case ReportFormat::md: return print_text(report, out, true);
    case ReportFormat::csv: return print_csv(report, out);
    case ReportFormat::json: return print_json(report, out);
    case ReportFormat::svg:
    case ReportFormat::prom: break;
  }
  throw unsupported_format(format, "the per-node view",
                           {ReportFormat::table, ReportFormat::md, ReportFormat::csv, ReportFormat::json});
}

}  // namespace ncclsweep
