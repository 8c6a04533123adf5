#pragma once
// One figure a rank measured (or could not): what `ncclsweep probe` writes, one per line,
// to records.jsonl and, all together, to probe.json (docs/probe.md).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/probe_metric.hpp"

namespace ncclsweep::probe {

struct ProbeRecord {
  ProbeMetric metric = ProbeMetric::busy_clock_ghz;
  int rank = 0;
  std::string host;
  double value = 0;
  double spread = 0;     // relative spread of the repeats behind the value (0.05 = 5%); 0 unknown
  std::string skipped;   // why it was not measured; empty when value holds
  std::string detail;    // what the value is of: "cpu 3", "node 1", "throttle: sw_power_cap"
  bool measured() const { return skipped.empty(); }
};

ProbeRecord measured(ProbeMetric metric, double value, double spread = 0, std::string detail = {});
ProbeRecord skipped(ProbeMetric metric, std::string why);

// A record's JSON carries its metric's probe, unit and better direction too, so the file
// reads without the source; reading takes only what makes the record.
void to_json(nlohmann::json& j, const ProbeRecord& r);
void from_json(const nlohmann::json& j, ProbeRecord& r);

// Relative spread of repeated readings: (max - min) / median; 0 for fewer than two.
double relative_spread(std::vector<double> values);

}  // namespace ncclsweep::probe
