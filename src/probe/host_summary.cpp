#include "probe/host_summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/iteration_stats.hpp"
#include "core/printf_text.hpp"

namespace ncclsweep::probe {
namespace {

bool better_of(const MetricInfo& info, double a, double b) {
  return info.better == Better::higher ? a > b : a < b;
}

}  // namespace

std::vector<HostValue> summarise_hosts(const std::vector<ProbeRecord>& records) {
  std::vector<std::string> hosts;
  for (const auto& r : records) {
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  }
  std::vector<HostValue> out;
  for (const auto& host : hosts) {
    std::map<ProbeMetric, std::vector<const ProbeRecord*>> by_metric;
    for (const auto& r : records) {
      if (r.host == host && r.measured()) by_metric[r.metric].push_back(&r);
    }
    for (const auto& [metric, list] : by_metric) {
      const MetricInfo& info = metric_info(metric);
      HostValue v;
      v.host = host;
      v.metric = metric;
      v.ranks = static_cast<int>(list.size());
      std::vector<double> values;
      const ProbeRecord* worst = list.front();
      for (const auto* r : list) {
        values.push_back(r->value);
        v.spread = std::max(v.spread, r->spread);
        if (better_of(info, worst->value, r->value)) worst = r;
      }
      v.median = median_of(values);
      v.worst_rank = worst->rank;
      v.worst_value = worst->value;
      out.push_back(v);
    }
  }
  return out;
}

bool worse_than(const MetricInfo& info, double value, double baseline) {
  const double margin = std::max(info.tolerance * std::fabs(baseline), info.floor);
  return info.better == Better::higher ? value < baseline - margin : value > baseline + margin;
}

std::vector<Outlier> outlier_hosts(const std::vector<HostValue>& hosts) {
  std::map<ProbeMetric, std::vector<const HostValue*>> by_metric;
  for (const auto& h : hosts) by_metric[h.metric].push_back(&h);
  std::vector<Outlier> out;
  for (const auto& [metric, list] : by_metric) {
    if (list.size() < 2) continue;
    for (const auto* h : list) {
      // Against the other hosts only: a host inside its own baseline pulls it halfway to
      // itself when there are two, and a host at half the other's rate went unnamed.
      std::vector<double> others;
      for (const auto* o : list) {
        if (o != h) others.push_back(o->median);
      }
      const double baseline = median_of(others);
      // The host's worst rank decides: one rank on a shared core is the case to catch.
      if (worse_than(metric_info(metric), h->worst_value, baseline)) {
        out.push_back({*h, baseline, list.size() == 2 ? "the other host" : "the other hosts' median"});
      }
    }
  }
  return out;
}

std::vector<doctor::Finding> outlier_findings(const std::vector<Outlier>& outliers) {
  std::vector<doctor::Finding> findings;
  for (const auto& o : outliers) {
    const MetricInfo& info = metric_info(o.host.metric);
    doctor::Finding f;
    f.check = "probe." + std::string(kProbeMetricNames.name(o.host.metric));
    f.severity = doctor::Severity::warning;
    f.ranks = {o.host.worst_rank};
    f.hosts = {o.host.host};
    const std::string unit(info.unit);
    f.evidence = printf_text("%s rank %d: %.3g %s (the host's median over %d rank(s): %.3g) against %s %.3g %s",
                             o.host.host.c_str(), o.host.worst_rank, o.host.worst_value, unit.c_str(), o.host.ranks,
                             o.host.median, o.against.c_str(), o.baseline, unit.c_str());
    f.fix = std::string(info.cause);
    findings.push_back(std::move(f));
  }
  return doctor::merge_findings(std::move(findings));
}

std::vector<std::string> named_hosts(const std::vector<Outlier>& outliers) {
  std::vector<std::string> hosts;
  for (const auto& o : outliers) {
    if (std::find(hosts.begin(), hosts.end(), o.host.host) == hosts.end()) hosts.push_back(o.host.host);
  }
  return hosts;
}

}  // namespace ncclsweep::probe
