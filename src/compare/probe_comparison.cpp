#include "compare/probe_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/errors.hpp"
#include "core/iteration_stats.hpp"
#include "core/printf_text.hpp"
#include "probe/host_summary.hpp"

namespace ncclsweep {

using probe::Better;
using probe::metric_info;

double failing_ratio(const probe::MetricInfo& info, double threshold) {
  return std::min(threshold, 1 / (1 + info.tolerance));
}

double probe_noise_band(const probe::MetricInfo& info, double value, double spread, const NoiseModel& noise) {
  return std::max(noise.relative, spread) * std::fabs(value) + info.floor / 2;
}

bool ProbeComparison::passed() const {
  return std::none_of(rows.begin(), rows.end(), [](const ProbeRowComparison& r) { return r.fails; });
}

std::string ProbeComparison::summary() const {
  int counts[5] = {};
  for (const auto& r : rows) ++counts[static_cast<int>(r.verdict)];
  std::string text = printf_text("%zu figures: %d same, %d better, %d worse, %d ambiguous", rows.size(),
                                 counts[static_cast<int>(Verdict::same)], counts[static_cast<int>(Verdict::faster)],
                                 counts[static_cast<int>(Verdict::slower)], counts[static_cast<int>(Verdict::ambiguous)]);
  if (const int unresolved = counts[static_cast<int>(Verdict::unresolved)]; unresolved > 0) {
    text += printf_text(", %d unresolved (a probe that could not measure there: see its reason)", unresolved);
  }
  text += " -> ";
  if (passed()) return text + "PASS";
  std::string failing;
  for (const auto& r : rows) {
    if (r.fails) failing += (failing.empty() ? "" : ", ") + std::string(probe::kProbeMetricNames.name(r.metric)) + " on " + r.host;
  }
  return text + "FAIL: worse than the reference beyond its tolerance at " + failing;
}

namespace {

// Per metric, the reason of its first unresolved record among `records` on `host` (every
// host when empty); empty when there is none.
std::string unresolved_reason(const std::vector<probe::ProbeRecord>& records, probe::ProbeMetric metric,
                              const std::string& host = {}) {
  for (const auto& r : records) {
    if (r.metric == metric && !r.unresolved.empty() && (host.empty() || r.host == host)) return r.unresolved;
  }
  return {};
}

}  // namespace

ProbeComparison compare_probe_records(const std::vector<probe::ProbeRecord>& new_records,
                                      const std::vector<probe::ProbeRecord>& reference, const CompareOptions& options) {
  // The reference: per metric the median over its hosts' medians, and its spread: the
  // widest within one host, or how far its hosts differ from each other if that is wider.
  // A reference whose own hosts disagree by 40% cannot call a new host 20% below worse.
  std::map<probe::ProbeMetric, std::vector<double>> reference_medians;
  std::map<probe::ProbeMetric, double> reference_spread;
  for (const auto& h : probe::summarise_hosts(reference)) {
    reference_medians[h.metric].push_back(h.median);
    reference_spread[h.metric] = std::max(reference_spread[h.metric], h.spread);
  }
  for (const auto& [metric, medians] : reference_medians) {
    const auto [low, high] = std::minmax_element(medians.begin(), medians.end());
    const double centre = std::fabs(median_of(medians));
    if (medians.size() > 1 && centre > 0) {
      reference_spread[metric] = std::max(reference_spread[metric], (*high - *low) / centre);
    }
  }
  const auto new_hosts = probe::summarise_hosts(new_records);
  ProbeComparison out;
  out.threshold = options.threshold;
  // NEW's hosts in order, metrics in enum order: measured figures and unresolved ones alike.
  std::vector<std::string> hosts;
  for (const auto& r : new_records) {
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  }
  for (const auto& host : hosts) {
    for (const auto& [metric, name] : probe::kProbeMetricNames.entries()) {
      const auto measured = std::find_if(new_hosts.begin(), new_hosts.end(),
                                         [&](const probe::HostValue& v) { return v.host == host && v.metric == metric; });
      const std::string new_unresolved = measured == new_hosts.end() ? unresolved_reason(new_records, metric, host) : "";
      const auto it = reference_medians.find(metric);
      const std::string reference_unresolved = it == reference_medians.end() ? unresolved_reason(reference, metric) : "";
      if (measured == new_hosts.end() && new_unresolved.empty()) continue;  // not measured on this host
      if (it == reference_medians.end() && reference_unresolved.empty()) continue;  // nor in the reference
      ProbeRowComparison row;
      row.host = host;
      row.metric = metric;
      if (!new_unresolved.empty() || !reference_unresolved.empty()) {
        row.verdict = Verdict::unresolved;
        row.unresolved = !new_unresolved.empty() ? "new: " + new_unresolved : "reference: " + reference_unresolved;
        row.ratio = 0;
        if (measured != new_hosts.end()) row.new_value = measured->median;
        if (it != reference_medians.end()) row.reference_value = median_of(it->second);
        out.rows.push_back(row);
        continue;
      }
      const probe::HostValue& h = *measured;
      const probe::MetricInfo& info = metric_info(metric);
      row.new_value = h.median;
      row.reference_value = median_of(it->second);
      row.new_band = probe_noise_band(info, row.new_value, h.spread, options.noise);
      row.reference_band = probe_noise_band(info, row.reference_value, reference_spread[metric], options.noise);
      // judge() reads higher as faster; a lower-is-better figure is judged on its negation.
      const double sign = info.better == Better::higher ? 1 : -1;
      row.verdict = judge(sign * row.new_value, row.new_band, sign * row.reference_value, row.reference_band);
      const double pad = info.floor;  // keeps a ratio of near-zero figures (stall counts) finite
      row.ratio = info.better == Better::higher ? (row.new_value + pad) / (row.reference_value + pad)
                                                : (row.reference_value + pad) / (row.new_value + pad);
      row.fails = row.verdict == Verdict::slower && row.ratio < failing_ratio(info, options.threshold);
      out.rows.push_back(row);
    }
  }
  if (out.rows.empty()) {
    throw UsageError("the two probe runs share no measured figure",
                     "compare probe runs made with the same engine (GPU figures need --engine nccl on both)");
  }
  return out;
}

std::vector<doctor::Finding> failing_findings(const ProbeComparison& c) {
  std::vector<doctor::Finding> out;
  for (const auto& r : c.rows) {
    if (!r.fails) continue;
    const probe::MetricInfo& info = metric_info(r.metric);
    const std::string metric(probe::kProbeMetricNames.name(r.metric));
    doctor::Finding f;
    f.check = "probe." + metric;
    f.severity = doctor::Severity::warning;
    f.hosts = {r.host};
    f.evidence = printf_text("%s %s %.4g %s against the reference's %.4g (%.2f of it)", r.host.c_str(), metric.c_str(),
                             r.new_value, std::string(info.unit).c_str(), r.reference_value, r.ratio);
    f.fix = std::string(info.cause);
    out.push_back(std::move(f));
  }
  return out;
}

std::string probe_comparison_table(const ProbeComparison& c) {
  std::string text = printf_text("%-20s %-30s %12s %12s %8s %-9s\n", "host", "figure", "new", "reference", "ratio", "verdict");
  for (const auto& r : c.rows) {
    const probe::MetricInfo& info = metric_info(r.metric);
    const std::string metric(probe::kProbeMetricNames.name(r.metric));
    if (r.verdict == Verdict::unresolved) {
      const bool new_side = r.unresolved.rfind("new: ", 0) == 0;
      text += printf_text("%-20s %-30s %12s %12s %8s %-9s %s\n", r.host.c_str(), metric.c_str(),
                          new_side ? "?" : printf_text("%.4g", r.new_value).c_str(),
                          new_side ? printf_text("%.4g", r.reference_value).c_str() : "?", "-", "unresolved",
                          std::string(info.unit).c_str());
      continue;
    }
    const char* verdict = r.verdict == Verdict::faster ? "better" : r.verdict == Verdict::slower ? "worse" : verdict_name(r.verdict);
    text += printf_text("%-20s %-30s %12.4g %12.4g %8.3f %-9s%s %s\n", r.host.c_str(), metric.c_str(), r.new_value,
                        r.reference_value, r.ratio, verdict, r.fails ? " FAIL" : "", std::string(info.unit).c_str());
  }
  for (const auto& r : c.rows) {
    if (r.verdict != Verdict::unresolved) continue;
    text += "# " + r.host + " " + std::string(probe::kProbeMetricNames.name(r.metric)) + " unresolved (" + r.unresolved + ")\n";
  }
  for (const auto& r : c.rows) {
    if (!r.fails) continue;
    text += "# " + r.host + " " + std::string(probe::kProbeMetricNames.name(r.metric)) + ": " +
            std::string(metric_info(r.metric).cause) + "\n";
  }
  return text + c.summary() + "\n";
}

}  // namespace ncclsweep
