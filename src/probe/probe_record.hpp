#pragma once
// One figure a rank measured (or could not): what `ncclsweep probe` writes, one per line,
// to records.jsonl and, all together, to probe.json (docs/probe.md).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/probe_metric.hpp"

namespace ncclsweep::probe {

// Three states: measured (value holds), skipped (the probe did not run here: no GPU, one
// NUMA node) and unresolved (it ran, but what it saw cannot stand for the figure: a stall
// watcher that hardly ran, a reading that is not a number). Only a measured record is
// judged or compared; the other two carry their reason instead of a value.
struct ProbeRecord {
  ProbeMetric metric = ProbeMetric::busy_clock_ghz;
  int rank = 0;
  std::string host;
  double value = 0;
  double spread = 0;     // relative spread of the repeats behind the value (0.05 = 5%); 0 unknown
  // The figure of each repeat (a round of the add chain, a slice of the stall watch, a
  // timed map/unmap) in the order measured; empty when the value has none behind it.
  std::vector<double> repeats;
  std::string skipped;     // why it was not measured; empty when it was
  std::string unresolved;  // why what was measured cannot stand for the figure; empty when it can
  std::string detail;      // what the value is of: "cpu 3", "node 1", "throttle: sw_power_cap"
  bool measured() const { return skipped.empty() && unresolved.empty(); }
};

// `repeats` also gives the spread (relative_spread of them).
ProbeRecord measured(ProbeMetric metric, double value, double spread = 0, std::string detail = {});
ProbeRecord measured_repeats(ProbeMetric metric, double value, std::vector<double> repeats, std::string detail = {});
ProbeRecord skipped(ProbeMetric metric, std::string why);
ProbeRecord unresolved(ProbeMetric metric, std::string why, std::string detail = {});
// The record itself, or unresolved when its value or a repeat is not a finite number.
ProbeRecord checked(ProbeRecord record);

// A record's JSON carries its metric's probe, unit and better direction too, so the file
// reads without the source; reading takes only what makes the record.
void to_json(nlohmann::json& j, const ProbeRecord& r);
void from_json(const nlohmann::json& j, ProbeRecord& r);

// Relative spread of repeated readings: (max - min) / median; 0 for fewer than two, and
// (max - min) / max when the median is 0 (stall counts of mostly quiet slices).
double relative_spread(std::vector<double> values);

}  // namespace ncclsweep::probe
