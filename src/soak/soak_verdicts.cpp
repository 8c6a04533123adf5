#include "soak/soak_verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/iteration_stats.hpp"
#include "core/name_table.hpp"
#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "locate/host_layout.hpp"
#include "measure/fixed_test.hpp"
#include "locate/verdicts.hpp"
#include "soak/change_points.hpp"

namespace ncclsweep::soak {
namespace {

constexpr NameTable<VerdictKind, kVerdictKinds> kVerdictNames{
    "soak verdict",
    {{{VerdictKind::drift, "drift"}, {VerdictKind::flap, "flap"}, {VerdictKind::throttling, "throttling"},
      {VerdictKind::outliers, "outliers"}}}};

// One followed quantity: the windows it has a value in, and the log of the values.
struct Series {
  SoakScope scope = SoakScope::host;
  int host = -1;
  std::string name;
  std::vector<int> windows;  // positions in the window list
  std::vector<double> values;
};

using TestKey = std::tuple<const CollectiveKind*, Bytes>;

// Per test and host (-1: world), the algbw of every window, and the peer-relative form.
std::vector<Series> busbw_series(const std::vector<SoakWindow>& windows, int hosts) {
  std::map<std::tuple<TestKey, int>, Series> series;
  for (std::size_t w = 0; w < windows.size(); ++w) {
    std::map<TestKey, std::vector<double>> host_figures;
    for (const MeasurementRecord& f : windows[w].figures) {
      if (place_of(f).scope == SoakScope::host && f.algbw_gbps > 0) host_figures[{f.collective, f.size_bytes}].push_back(f.algbw_gbps);
    }
    for (const MeasurementRecord& f : windows[w].figures) {
      const SoakPlace& place = place_of(f);
      if (!(f.algbw_gbps > 0) || place.scope == SoakScope::pair) continue;  // pairs are judged by trace_world
      const TestKey test{f.collective, f.size_bytes};
      double value = f.algbw_gbps;
      // With three hosts or more the median of the hosts is a reference one slow host
      // cannot move; with two it would be half of it.
      if (place.scope == SoakScope::host && hosts >= 3 && host_figures[test].size() >= 3) value /= median_of(host_figures[test]);
      const int host = place.scope == SoakScope::world ? -1 : place.host;
      Series& s = series[{test, host}];
      s.scope = place.scope;
      s.host = host;
      s.name = test_name(*f.collective, f.size_bytes) + " busbw";
      s.windows.push_back(static_cast<int>(w));
      s.values.push_back(std::log(value));
    }
  }
  std::vector<Series> out;
  for (auto& [key, s] : series) out.push_back(std::move(s));
  return out;
}

std::vector<Series> clock_series(const std::vector<SoakWindow>& windows) {
  std::map<int, Series> series;
  for (std::size_t w = 0; w < windows.size(); ++w) {
    for (const RankSignals& s : windows[w].signals) {
      if (s.gpu.gap != Gap::none || s.gpu.sm_mhz <= 0) continue;
      Series& out = series[s.rank];
      out.host = s.host;
      out.name = "rank " + std::to_string(s.rank) + " sm clock";
      out.windows.push_back(static_cast<int>(w));
      out.values.push_back(std::log(static_cast<double>(s.gpu.sm_mhz)));
    }
  }
  std::vector<Series> out;
  for (auto& [rank, s] : series) out.push_back(std::move(s));
  return out;
}


// Drift or flap of one series, and its outliers against its level(s).
void judge_series(const Series& s, const std::vector<SoakWindow>& windows, const VerdictOptions& options,
                  bool count_outliers, std::vector<Verdict>& out) {
  const auto at = [&](int i) -> const SoakWindow& { return windows[static_cast<std::size_t>(s.windows[static_cast<std::size_t>(i)])]; };
  Verdict base;
  base.scope = s.scope;
  base.host = s.host;
  base.series = s.name;
  if (const auto levels = two_levels(s.values, options.noise_relative); levels && is_flap(*levels)) {
    Verdict v = base;
    v.kind = VerdictKind::flap;
    const auto first_low = std::find(levels->level.begin(), levels->level.end(), 0) - levels->level.begin();
    v.first_window = at(static_cast<int>(first_low)).index;
    v.start_s = at(static_cast<int>(first_low)).start_s;
    v.step = std::expm1(levels->high - levels->low);
    v.windows = levels->changes;
    v.evidence = s.name + ": two levels " + signed_percent(v.step) + " apart, " + std::to_string(levels->changes) +
                 " changes between them in " + std::to_string(s.values.size()) + " windows";
    out.push_back(v);
    return;  // a flap's low windows are neither a drift nor outliers
  }
  const double band = effective_band(s.values, options.noise_relative);
  const int baseline = options.baseline_windows;
  const auto change = cusum_change(s.values, band, baseline);
  if (change) {
    Verdict v = base;
    v.kind = VerdictKind::drift;
    v.first_window = at(change->start).index;
    v.start_s = at(change->start).start_s;
    v.step = change->step;
    v.evidence = s.name + ": " + signed_percent(change->step) + " from window " + std::to_string(v.first_window) +
                 printf_text(" (%.0f s in), band +-%.1f%%", v.start_s, std::expm1(band) * 100);
    out.push_back(v);
  }
  if (!count_outliers) return;
  // Outliers: below the threshold of the level they belong to (before or after a drift).
  const int n = static_cast<int>(s.values.size());
  const int split = change ? change->start : n;
  const auto level_of = [&](int from, int to) {
    return from < to ? median_of({s.values.begin() + from, s.values.begin() + to}) : 0.0;
  };
  const double before = level_of(0, split), after = level_of(split, n);
  Verdict v = base;
  v.kind = VerdictKind::outliers;
  for (int i = 0; i < n; ++i) {
    const double level = i < split ? before : after;
    if (s.values[static_cast<std::size_t>(i)] - level < std::log(options.threshold)) {
      if (v.windows++ == 0) {
        v.first_window = at(i).index;
        v.start_s = at(i).start_s;
      }
    }
  }
  if (v.windows > 0) {
    v.evidence = s.name + ": " + std::to_string(v.windows) + " window(s) below " +
                 printf_text("%.2f", options.threshold) + " of the level, the first window " +
                 std::to_string(v.first_window);
    out.push_back(v);
  }
}

void judge_throttling(const std::vector<SoakWindow>& windows, std::vector<Verdict>& out) {
  std::map<int, Verdict> by_rank;
  for (const SoakWindow& w : windows) {
    for (const RankSignals& s : w.signals) {
      if (s.gpu.gap != Gap::none) continue;
      if (std::none_of(s.gpu.throttled.begin(), s.gpu.throttled.end(), [](bool b) { return b; })) continue;
      Verdict& v = by_rank[s.rank];
      if (v.windows++ == 0) {
        v.kind = VerdictKind::throttling;
        v.scope = SoakScope::host;
        v.host = s.host;
        v.series = "rank " + std::to_string(s.rank) + " throttle reasons";
        v.first_window = w.index;
        v.start_s = w.start_s;
        v.lowest_mhz = s.gpu.sm_mhz;
        v.evidence = "";
      }
      v.lowest_mhz = std::min(v.lowest_mhz, static_cast<double>(s.gpu.sm_mhz));
      for (const ThrottleReason reason : throttle_reasons(s.gpu.throttled)) {
        const std::string name(name_of(reason));
        if (v.evidence.find(name) == std::string::npos) v.evidence += (v.evidence.empty() ? "" : ",") + name;
      }
    }
  }
  for (auto& [rank, v] : by_rank) {
    v.evidence = v.series + ": " + v.evidence + " in " + std::to_string(v.windows) + " window(s) from window " +
                 std::to_string(v.first_window) + printf_text(", SM clock down to %.0f MHz", v.lowest_mhz);
    out.push_back(v);
  }
}

// The pair figures of the windows from index `from` on, as locate's pairs measurements:
// each window one repeat of each pair and test.
std::vector<MeasurementRecord> pair_measurements(const std::vector<SoakWindow>& windows, int from) {
  std::vector<MeasurementRecord> out;
  for (const SoakWindow& w : windows) {
    if (w.index < from) continue;
    for (const MeasurementRecord& f : w.figures) {
      const SoakPlace& place = place_of(f);
      if (place.scope != SoakScope::pair || !(f.algbw_gbps > 0)) continue;
      MeasurementRecord m = f;
      if (!(m.busbw_gbps > 0)) m.busbw_gbps = m.algbw_gbps;
      m.soak.reset();
      m.locate = LocatePlace{LocatePhase::pairs, 0, {place.host, place.peer}, -1, {}, 1};
      out.push_back(std::move(m));
    }
  }
  return out;
}

// Each drift (slower) or flap of the world traced to the host or link behind it, from the
// pair tests of the windows after it. A world collective goes at its slowest link, so the
// pairs behind its change sit near the world's low level and the others near 1: the
// threshold is halfway between in log space, the square root of the low level (a world at
// 0.11x looks for pairs below 0.33x, one at 0.6x below 0.77x), within 0.1-0.95; locate's
// noise rule holds besides (a linear halfway would name hosts whose pairs CPU contention
// held to a third of the others'). What the pairs cannot place stays the world's alone,
// and its evidence says so.
void trace_world(const std::vector<SoakWindow>& windows, int hosts, std::vector<Verdict>& out) {
  if (hosts < 3) return;
  std::vector<std::string> names;
  for (int h = 0; h < hosts; ++h) names.push_back(std::to_string(h));
  const locate::HostLayout layout = locate::layout_from_hosts(names);
  const std::size_t judged = out.size();
  for (std::size_t i = 0; i < judged; ++i) {
    const Verdict world = out[i];
    if (world.host != -1 || (world.kind != VerdictKind::drift && world.kind != VerdictKind::flap)) continue;
    if (world.kind == VerdictKind::drift && world.step >= 0) continue;  // a faster world has nothing to trace
    const std::vector<MeasurementRecord> measured = pair_measurements(windows, world.first_window);
    if (measured.empty()) {
      out[i].evidence += "; not traced: the soak ended before its pair tests began (a longer --duration traces it)";
      continue;
    }
    const auto [first, last] = std::minmax_element(measured.begin(), measured.end(),
                                                   [](const auto& a, const auto& b) { return a.repeat < b.repeat; });
    const std::string where = printf_text("pair tests in windows %d-%d", first->repeat, last->repeat);
    // Each window measures one round of pairs: a soak that ended mid-trace has some pairs
    // unmeasured, and judging the rest could blame a host for a partner it never met.
    std::set<std::pair<int, int>> met;
    for (const MeasurementRecord& m : measured) met.emplace(m.locate->hosts[0], m.locate->hosts[1]);
    const std::size_t all_pairs = static_cast<std::size_t>(hosts * (hosts - 1) / 2);
    if (met.size() < all_pairs) {
      out[i].evidence += printf_text("; not traced: the %s reached %zu of the %zu pairs of hosts before the soak ended "
                                     "(a longer --duration traces it)",
                                     where.c_str(), met.size(), all_pairs);
      continue;
    }
    const double low = world.kind == VerdictKind::drift ? 1 + world.step : 1 / (1 + world.step);
    const double threshold = std::clamp(std::sqrt(low), 0.1, 0.95);
    const std::string from = "the world's " + std::string(name_of(world.kind)) + " from window " +
                             std::to_string(world.first_window) + " (" + signed_percent(world.step) + ")";
    bool placed = false;
    for (const locate::Finding& f : locate::judge(layout, measured, threshold).findings) {
      const bool link = f.kind == locate::FindingKind::link;
      if (f.kind != locate::FindingKind::host && !link) continue;
      placed = true;
      Verdict v = world;
      v.scope = link ? SoakScope::pair : SoakScope::host;
      v.host = f.hosts[0];
      v.peer = link ? f.hosts[1] : -1;
      // A host whose own split already drifted has its verdict: the trace adds nothing.
      const bool known = !link && std::any_of(out.begin(), out.end(), [&](const Verdict& o) {
        return o.host == v.host && o.peer < 0 && o.kind == v.kind;
      });
      if (known) continue;
      v.evidence = v.series + ": " + from + ", traced by " + where +
                   (link ? printf_text(": this link's pairs at %.2fx of what hosts reach with their better partners, "
                                       "both hosts fine with their other partners",
                                       f.ratio)
                         : printf_text(": this host's pairs at %.2fx of what hosts reach with their better partners",
                                       f.ratio));
      out.push_back(v);
    }
    if (!placed) out[i].evidence += "; " + where + " name no host or link (what slowed it slowed every pair alike)";
  }
}

}  // namespace

std::string_view name_of(VerdictKind kind) { return kVerdictNames.name(kind); }

bool SoakVerdicts::has(int host, VerdictKind kind) const {
  return std::any_of(findings.begin(), findings.end(), [&](const Verdict& v) {
    return v.kind == kind && (v.host == host || (host >= 0 && v.peer == host));
  });
}

SoakVerdicts judge_soak(const std::vector<SoakWindow>& windows, int hosts, const VerdictOptions& options) {
  SoakVerdicts verdicts;
  for (const Series& s : busbw_series(windows, hosts)) judge_series(s, windows, options, true, verdicts.findings);
  // Clocks: drift and flaps only; a clock dip is what throttling reports.
  for (const Series& s : clock_series(windows)) judge_series(s, windows, options, false, verdicts.findings);
  judge_throttling(windows, verdicts.findings);
  trace_world(windows, hosts, verdicts.findings);
  std::stable_sort(verdicts.findings.begin(), verdicts.findings.end(), [](const Verdict& a, const Verdict& b) {
    return std::tie(a.host, a.peer, a.kind, a.first_window) < std::tie(b.host, b.peer, b.kind, b.first_window);
  });
  return verdicts;
}

}  // namespace ncclsweep::soak
