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

ProbeRecord skipped(ProbeMetric metric, std::string why) {
  ProbeRecord r;
  r.metric = metric;
  r.skipped = why.empty() ? "not measured" : std::move(why);
  return r;
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
  } else {
    j["skipped"] = r.skipped;
  }
  if (!r.detail.empty()) j["detail"] = r.detail;
}

void from_json(const nlohmann::json& j, ProbeRecord& r) {
  r.metric = kProbeMetricNames.parse(j.at("metric").get<std::string>());
  r.rank = j.at("rank").get<int>();
  r.host = j.at("host").get<std::string>();
  r.value = j.value("value", 0.0);
  r.spread = j.value("spread", 0.0);
  r.skipped = j.value("skipped", std::string());
  r.detail = j.value("detail", std::string());
}

double relative_spread(std::vector<double> values) {
  if (values.size() < 2) return 0;
  std::sort(values.begin(), values.end());
  const double mid = values[values.size() / 2];
  return mid != 0 ? std::fabs(values.back() - values.front()) / std::fabs(mid) : 0;
}

}  // namespace ncclsweep::probe
