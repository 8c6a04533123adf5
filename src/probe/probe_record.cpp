#include "probe/probe_record.hpp"

#include <algorithm>
#include <cmath>

namespace ncclsweep::probe {

ProbeRecord measured(ProbeMetric metric, double value, double spread, std::string detail) {
  ProbeRecord r;
  r.metric = metric;
  r.value = value;
  r.spread = spread;
  r.detail = std::move(detail);
  return r;
}

ProbeRecord measured_repeats(ProbeMetric metric, double value, std::vector<double> repeats, std::string detail) {
  ProbeRecord r = measured(metric, value, relative_spread(repeats), std::move(detail));
  r.repeats = std::move(repeats);
  return r;
}

ProbeRecord skipped(ProbeMetric metric, std::string why) {
  ProbeRecord r;
  r.metric = metric;
  r.skipped = why.empty() ? "not measured" : std::move(why);
  return r;
}

ProbeRecord unresolved(ProbeMetric metric, std::string why, std::string detail) {
  ProbeRecord r;
  r.metric = metric;
  r.unresolved = why.empty() ? "not resolved" : std::move(why);
  r.detail = std::move(detail);
  return r;
}

ProbeRecord checked(ProbeRecord record) {
  if (!record.measured()) return record;
  const bool finite = std::isfinite(record.value) && std::isfinite(record.spread) &&
                      std::all_of(record.repeats.begin(), record.repeats.end(), [](double v) { return std::isfinite(v); });
  if (finite) return record;
  return unresolved(record.metric, "the probe's reading is not a number", std::move(record.detail));
}

void to_json(nlohmann::json& j, const ProbeRecord& r) {
  const MetricInfo& info = metric_info(r.metric);
  j = {{"metric", kProbeMetricNames.name(r.metric)},
       {"probe", info.probe},
       {"unit", info.unit},
       {"better", info.better == Better::higher ? "higher" : "lower"},
       {"rank", r.rank},
       {"host", r.host}};
  if (r.measured()) {
    j["value"] = r.value;
    j["spread"] = r.spread;
    if (!r.repeats.empty()) j["repeats"] = r.repeats;
  } else if (!r.skipped.empty()) {
    j["skipped"] = r.skipped;
  } else {
    j["unresolved"] = r.unresolved;
  }
  if (!r.detail.empty()) j["detail"] = r.detail;
}

void from_json(const nlohmann::json& j, ProbeRecord& r) {
  r.metric = kProbeMetricNames.parse(j.at("metric").get<std::string>());
  r.rank = j.at("rank").get<int>();
  r.host = j.at("host").get<std::string>();
  r.value = j.value("value", 0.0);
  r.spread = j.value("spread", 0.0);
  r.repeats = j.value("repeats", std::vector<double>{});
  r.skipped = j.value("skipped", std::string());
  r.unresolved = j.value("unresolved", std::string());
  r.detail = j.value("detail", std::string());
}

double relative_spread(std::vector<double> values) {
  if (values.size() < 2) return 0;
  std::sort(values.begin(), values.end());
  const double mid = values[values.size() / 2];
  const double range = std::fabs(values.back() - values.front());
  if (mid != 0) return range / std::fabs(mid);
  const double largest = std::max(std::fabs(values.front()), std::fabs(values.back()));
  return largest > 0 ? range / largest : 0;
}

}  // namespace ncclsweep::probe
