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

bool one_numa_node(const std::vector<ProbeRecord>& records, const std::string& host) {
  return std::any_of(records.begin(), records.end(), [&](const ProbeRecord& r) {
    return r.host == host && r.metric == ProbeMetric::numa_remote_copy_gbps && r.skipped == kOneNumaNode;
  });
}

double half_range(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return (*high - *low) / 2;
}

// Figures that mean nothing on a machine with one NUMA node (every byte is local there).
bool needs_two_numa_nodes(ProbeMetric metric) {
  return metric == ProbeMetric::numa_remote_copy_gbps || metric == ProbeMetric::memory_on_local_node;
}

// The best and the worst of a host's worst rank: over its repeats, or its value alone.
double best_repeat(const MetricInfo& info, const HostValue& h) {
  if (h.worst_repeats.empty()) return h.worst_value;
  const auto [low, high] = std::minmax_element(h.worst_repeats.begin(), h.worst_repeats.end());
  return info.better == Better::higher ? *high : *low;
}
double worst_repeat(const MetricInfo& info, const HostValue& h) {
  if (h.worst_repeats.empty()) return h.worst_value;
  const auto [low, high] = std::minmax_element(h.worst_repeats.begin(), h.worst_repeats.end());
  return info.better == Better::higher ? *low : *high;
}

std::string cause_for(const HostValue& host) {
  if (host.one_numa_node && host.metric == ProbeMetric::numa_local_copy_gbps) return std::string(memory_bandwidth_cause());
  return std::string(metric_info(host.metric).cause);
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
    const bool one_node = one_numa_node(records, host);
    for (const auto& [metric, list] : by_metric) {
      const MetricInfo& info = metric_info(metric);
      HostValue v;
      v.host = host;
      v.metric = metric;
      v.ranks = static_cast<int>(list.size());
      v.one_numa_node = one_node;
      std::vector<double> values, typical;
      const ProbeRecord* worst = list.front();
      for (const auto* r : list) {
        values.push_back(r->value);
        typical.push_back(r->repeats.empty() ? r->value : median_of(r->repeats));
        v.spread = std::max(v.spread, r->spread);
        if (better_of(info, worst->value, r->value)) worst = r;
      }
      v.median = median_of(values);
      v.typical_repeat = median_of(typical);
      v.worst_rank = worst->rank;
      v.worst_value = worst->value;
      v.worst_repeats = worst->repeats;
      out.push_back(v);
    }
  }
  return out;
}

double peer_noise(const std::vector<const HostValue*>& peers, double baseline) {
  if (peers.empty()) return 0;
  std::vector<double> worst, halves;
  for (const HostValue* p : peers) {
    worst.push_back(p->worst_value);
    halves.push_back(half_range(p->worst_repeats));
  }
  double between = 0;
  if (peers.size() >= 3) {
    const double centre = median_of(worst);
    std::vector<double> deviations;
    for (const double w : worst) deviations.push_back(std::fabs(w - centre));
    between = 3 * 1.4826 * median_of(deviations);
  } else {
    for (const double w : worst) between = std::max(between, std::fabs(w - baseline));
  }
  return between + median_of(halves);
}

std::vector<Outlier> outlier_hosts(const std::vector<HostValue>& hosts) {
  std::map<ProbeMetric, std::vector<const HostValue*>> by_metric;
  for (const auto& h : hosts) by_metric[h.metric].push_back(&h);
  std::vector<Outlier> out;
  for (const auto& [metric, list] : by_metric) {
    if (list.size() < 2) continue;
    const MetricInfo& info = metric_info(metric);
    for (const auto* h : list) {
      if (h->one_numa_node && needs_two_numa_nodes(metric)) continue;
      // Against the other hosts only: a host inside its own baseline pulls it halfway to
      // itself when there are two, and a host at half the other's rate went unnamed.
      std::vector<const HostValue*> peers;
      std::vector<double> others, others_typical, peers_worst;
      for (const auto* o : list) {
        if (o == h) continue;
        peers.push_back(o);
        others.push_back(o->median);
        others_typical.push_back(o->typical_repeat);
        peers_worst.push_back(worst_repeat(info, *o));
      }
      const double noise = peer_noise(peers, median_of(others));
      const auto margin_for = [&](double level) {
        return std::max({info.tolerance * std::fabs(level), info.floor, noise});
      };
      const auto beyond_of = [&info](double level, double margin) {
        return [&info, level, margin](double value) {
          return info.better == Better::higher ? value < level - margin : value > level + margin;
        };
      };
      const double baseline = median_of(others);
      const double margin = margin_for(baseline);
      // The host's worst rank decides (one rank on a shared core is the case to catch),
      // in its value and in most of its repeats: one stray stall is not a host's trait. Its
      // repeats meet the peers' typical repeat: their values carry their own stray slices.
      if (!beyond_of(baseline, margin)(h->worst_value)) continue;
      const double typical = median_of(others_typical);
      const auto& repeats = h->worst_repeats;
      const auto beyond_count = std::count_if(repeats.begin(), repeats.end(), beyond_of(typical, margin_for(typical)));
      if (!repeats.empty() && 2 * static_cast<std::size_t>(beyond_count) <= repeats.size()) continue;
      // Its best repeat must be worse than the other hosts' worst ones (their median): where
      // the ranges overlap, the peers' own spread explains the difference.
      const double envelope = median_of(peers_worst);
      if (!(info.better == Better::higher ? best_repeat(info, *h) < envelope : best_repeat(info, *h) > envelope)) continue;
      out.push_back({*h, baseline, margin, list.size() == 2 ? "the other host" : "the other hosts' median", cause_for(*h)});
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
    f.evidence = printf_text("%s rank %d: %.3g %s (the host's median over %d rank(s): %.3g) against %s %.3g %s, "
                             "beyond its margin of %.3g %s",
                             o.host.host.c_str(), o.host.worst_rank, o.host.worst_value, unit.c_str(), o.host.ranks,
                             o.host.median, o.against.c_str(), o.baseline, unit.c_str(), o.margin, unit.c_str());
    f.fix = o.cause;
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

std::vector<UnresolvedFigures> unresolved_figures(const std::vector<ProbeRecord>& records) {
  std::vector<UnresolvedFigures> out;
  for (const auto& r : records) {
    if (r.unresolved.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const UnresolvedFigures& u) { return u.reason == r.unresolved; });
    if (it == out.end()) it = out.insert(out.end(), {r.unresolved, {}});
    const std::string figure = std::string(kProbeMetricNames.name(r.metric)) + " on " + r.host;
    if (std::find(it->figures.begin(), it->figures.end(), figure) == it->figures.end()) it->figures.push_back(figure);
  }
  return out;
}

}  // namespace ncclsweep::probe
