// soak's pure parts: the change-point statistics, the verdicts over fake windows, the
// window record, the signals' encoding, metrics text, durations and the fault schedule.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "core/iteration_stats.hpp"
#include "measure/fault_injection.hpp"
#include "measure/fixed_test.hpp"
#include "soak/change_points.hpp"
#include "soak/duration.hpp"
#include "soak/soak_metrics.hpp"
#include "soak/soak_results.hpp"
#include "soak/soak_runner.hpp"
#include "soak/soak_verdicts.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
using namespace ncclsweep::soak;

namespace {

// log-space series: `level` with relative gaussian noise `sigma`, seeded.
std::vector<double> noisy(int n, double sigma, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0, sigma);
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(std::log(100.0) + noise(random));
  return values;
}

// Windows of 4 hosts x 2 ranks, one test; `host_gbps(window, host)` gives each host's
// algbw, the world's is the lowest host's.
template <typename Figures>
std::vector<SoakWindow> fake_windows(int n, Figures host_gbps) {
  std::vector<SoakWindow> windows;
  for (int w = 0; w < n; ++w) {
    SoakWindow window;
    window.index = w;
    window.start_s = 2.0 * w;
    window.end_s = 2.0 * (w + 1);
    double lowest = 1e9;
    for (int h = 0; h < 4; ++h) {
      MeasurementRecord f;
      f.soak = SoakPlace{SoakScope::host, h, -1};
      f.repeat = w;
      f.collective = &collective("all_reduce");
      f.dtype = &data_type("float32");
      f.op = ReduceOp::sum;
      f.size_bytes = f.requested_bytes = 1 << 20;
      f.ranks = 2;
      f.algbw_gbps = host_gbps(w, h);
      f.busbw_gbps = f.algbw_gbps;
      lowest = std::min(lowest, f.algbw_gbps);
      window.figures.push_back(f);
    }
    MeasurementRecord world = window.figures.front();
    world.soak = SoakPlace{SoakScope::world, -1, -1};
    world.ranks = 8;
    world.algbw_gbps = lowest;
    window.figures.push_back(world);
    for (int r = 0; r < 8; ++r) {
      RankSignals s;
      s.rank = r;
      s.host = r / 2;
      s.gpu.gap = Gap::no_gpu;
      s.cpu.gap = Gap::not_built;
      window.signals.push_back(s);
    }
    windows.push_back(window);
  }
  return windows;
}

std::vector<int> hosts_with(const SoakVerdicts& verdicts, VerdictKind kind) {
  std::vector<int> hosts;
  for (const soak::Verdict& v : verdicts.findings) {
    if (v.kind == kind && (hosts.empty() || hosts.back() != v.host)) hosts.push_back(v.host);
  }
  return hosts;
}

double jitter(int w, int h) { return 1 + 0.01 * std::sin(w * 7.0 + h * 3.0); }  // +-1%, deterministic

}  // namespace

TEST_CASE("CUSUM finds a sustained step, where it started and how large", "[soak]") {
  std::vector<double> values = noisy(20, 0.01, 1);
  for (int i = 8; i < 20; ++i) values[static_cast<std::size_t>(i)] += std::log(0.5);
  const auto change = cusum_change(values, effective_band(values, 0.04), 3);
  REQUIRE(change);
  CHECK(change->start == 8);
  CHECK(change->alarm > 8);
  CHECK(change->step == Approx(-0.5).margin(0.03));
}

TEST_CASE("CUSUM does not call one wild window a drift", "[soak]") {
  std::vector<double> values = noisy(20, 0.01, 2);
  values[10] += std::log(0.2);
  CHECK_FALSE(cusum_change(values, effective_band(values, 0.04), 3));
}

// A host's ratio to its peers on the 2-core CI machine, slowed 5-fold from window 4 on
// (bench/soak-false-alarms, 2026-12-02): window 5 dipped back. Its first differences
// then hold three large moves, and window_noise alone widened the band to +-150%, past
// what four windows of -2 could reach.
TEST_CASE("CUSUM finds a step that dips back once; the noise is read about the step", "[soak]") {
  const std::vector<double> values{-0.15, -0.05, 0.10, 0.01, -1.99, -0.21, -1.99, -1.67, -2.23};
  CHECK(window_noise(values) > 0.4);
  CHECK(step_residual_noise(values) < 0.2);
  const auto change = cusum_change(values, effective_band(values, 0.6), 3);
  REQUIRE(change);
  CHECK(change->start == 4);
  CHECK(change->step < -0.8);
}

TEST_CASE("CUSUM: no false alarm in 200 noise-only series inside the band", "[soak]") {
  int alarms = 0;
  for (unsigned seed = 0; seed < 200; ++seed) {
    const std::vector<double> values = noisy(40, 0.02, seed + 100);
    if (cusum_change(values, effective_band(values, 0.04), 3)) ++alarms;
  }
  CHECK(alarms == 0);
}

TEST_CASE("two levels: alternating windows change level often, a step once, noise has none", "[soak]") {
  std::vector<double> flapping = noisy(16, 0.01, 3);
  for (std::size_t i = 0; i < flapping.size(); ++i) {
    if (i % 2 == 1) flapping[i] += std::log(0.4);
  }
  const auto levels = two_levels(flapping, 0.04);
  REQUIRE(levels);
  CHECK(levels->changes == 15);
  CHECK(std::expm1(levels->high - levels->low) == Approx(1.5).margin(0.1));

  std::vector<double> step = noisy(16, 0.01, 4);
  for (std::size_t i = 8; i < step.size(); ++i) step[i] += std::log(0.4);
  const auto stepped = two_levels(step, 0.04);
  REQUIRE(stepped);
  CHECK(stepped->changes == 1);
  CHECK(stepped->step_misfits == 0);
  CHECK(is_flap(*levels));
  CHECK_FALSE(is_flap(*stepped));

  CHECK_FALSE(two_levels(noisy(16, 0.01, 5), 0.04));
}

TEST_CASE("a step with one stray window changes level three times and is still no flap", "[soak]") {
  // As seen on a loaded machine: the slowed host stalled once before its slow-down began.
  std::vector<double> step = noisy(10, 0.01, 6);
  for (std::size_t i = 4; i < step.size(); ++i) step[i] += std::log(0.2);
  step[1] += std::log(0.2);
  const auto levels = two_levels(step, 0.04);
  REQUIRE(levels);
  CHECK(levels->changes == 3);
  CHECK(levels->step_misfits == 1);
  CHECK_FALSE(is_flap(*levels));
  // Two levels taking turns in pairs, as @flap= makes them, stay a flap.
  std::vector<double> pairs = noisy(12, 0.01, 7);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if ((i / 2) % 2 == 1) pairs[i] += std::log(0.2);
  }
  const auto flapping = two_levels(pairs, 0.04);
  REQUIRE(flapping);
  CHECK(flapping->step_misfits >= 4);
  CHECK(is_flap(*flapping));
}

TEST_CASE("CUSUM: noise dips before a change do not pull its start early", "[soak]") {
  // A loaded machine's world series (log of busbw): two windows at 0.39x, one at 0.8x,
  // then the real change to 0.11x from window 7. The sum left zero at window 4 and never
  // came back; the change is the cut where two levels fit best.
  std::vector<double> values{0, -0.1, 0.05, 0, -0.95, -0.95, -0.22};
  for (int i = 0; i < 8; ++i) values.push_back(-2.2 + 0.02 * (i % 3));
  const auto change = cusum_change(values, std::log1p(0.6), 3);
  REQUIRE(change);
  CHECK(change->start == 7);
  CHECK(change->step == Approx(std::expm1(-2.2 - median_of({values.begin(), values.begin() + 7}))).margin(0.02));
}

TEST_CASE("soak verdicts: a host that drops from window 5 drifts, the others do not", "[soak]") {
  const auto windows = fake_windows(14, [](int w, int h) { return 10.0 * jitter(w, h) * (h == 2 && w >= 5 ? 0.3 : 1); });
  const SoakVerdicts verdicts = judge_soak(windows, 4, {});
  INFO(nlohmann::json(windows.back()).dump());
  CHECK(hosts_with(verdicts, VerdictKind::drift) == std::vector<int>{-1, 2});  // the world follows its slowest host
  for (const soak::Verdict& v : verdicts.findings) {
    if (v.kind != VerdictKind::drift) continue;
    CHECK(v.first_window == 5);
    CHECK(v.start_s == Approx(10));
    CHECK(v.step == Approx(-0.7).margin(0.02));
  }
  CHECK(hosts_with(verdicts, VerdictKind::flap).empty());
  CHECK(hosts_with(verdicts, VerdictKind::outliers).empty());
}

TEST_CASE("soak verdicts: alternating slow windows are a flap, not a drift", "[soak]") {
  const auto windows = fake_windows(16, [](int w, int h) { return 10.0 * jitter(w, h) * (h == 1 && w % 2 ? 0.3 : 1); });
  const SoakVerdicts verdicts = judge_soak(windows, 4, {});
  CHECK(hosts_with(verdicts, VerdictKind::flap) == std::vector<int>{-1, 1});
  CHECK(hosts_with(verdicts, VerdictKind::drift).empty());
}

TEST_CASE("soak verdicts: one window below the threshold is an outlier, counted", "[soak]") {
  const auto windows = fake_windows(14, [](int w, int h) { return 10.0 * jitter(w, h) * (h == 3 && w == 9 ? 0.5 : 1); });
  const SoakVerdicts verdicts = judge_soak(windows, 4, {});
  REQUIRE(hosts_with(verdicts, VerdictKind::outliers) == std::vector<int>{-1, 3});
  CHECK(hosts_with(verdicts, VerdictKind::drift).empty());
  for (const soak::Verdict& v : verdicts.findings) {
    CHECK(v.windows == 1);
    CHECK(v.first_window == 9);
  }
}

TEST_CASE("soak verdicts: steady hosts give nothing", "[soak]") {
  const auto windows = fake_windows(30, [](int w, int h) { return 10.0 * jitter(w, h); });
  CHECK_FALSE(judge_soak(windows, 4, {}).anything());
}

namespace {

// Steady hosts whose world drops to `world_share` from window 5 (traffic between hosts),
// with pair figures from window 8 on: `pair_gbps(a, b)` for each pair of the four hosts.
template <typename Pairs>
std::vector<SoakWindow> world_drift_with_pairs(double world_share, Pairs pair_gbps) {
  auto windows = fake_windows(14, [](int w, int h) { return 10.0 * jitter(w, h); });
  for (SoakWindow& w : windows) {
    for (MeasurementRecord& f : w.figures) {
      if (f.soak->scope == SoakScope::world && w.index >= 5) f.algbw_gbps *= world_share;
    }
    if (w.index < 8) continue;
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) {
        MeasurementRecord f = w.figures.front();
        f.soak = SoakPlace{SoakScope::pair, a, b};
        f.ranks = 4;
        f.algbw_gbps = f.busbw_gbps = pair_gbps(a, b) * jitter(w.index, a + b);
        w.figures.push_back(f);
      }
    }
  }
  return windows;
}

}  // namespace

TEST_CASE("soak verdicts: a world drift is traced through the pairs to the link behind it, from its window", "[soak]") {
  const auto windows = world_drift_with_pairs(0.3, [](int a, int b) { return a == 1 && b == 3 ? 2.0 : 10.0; });
  const SoakVerdicts verdicts = judge_soak(windows, 4, {});
  std::vector<std::pair<int, int>> drifting;
  for (const soak::Verdict& v : verdicts.findings) {
    if (v.kind != VerdictKind::drift) continue;
    drifting.emplace_back(v.host, v.peer);
    CHECK(v.first_window == 5);
    CHECK(v.step == Approx(-0.7).margin(0.02));
    if (v.host >= 0) {
      CHECK(v.scope == SoakScope::pair);
      CHECK_THAT(v.evidence, ContainsSubstring("traced by pair tests in windows 8-13"));
    }
  }
  CHECK(drifting == std::vector<std::pair<int, int>>{{-1, -1}, {1, 3}});
  // The link counts for both its hosts, not for the others.
  CHECK(verdicts.has(1, VerdictKind::drift));
  CHECK(verdicts.has(3, VerdictKind::drift));
  CHECK_FALSE(verdicts.has(0, VerdictKind::drift));
}

TEST_CASE("soak verdicts: a world drift whose pairs are slow with one host is that host's, and none is the world's alone",
          "[soak]") {
  const auto host = judge_soak(world_drift_with_pairs(0.3, [](int a, int b) { return a == 2 || b == 2 ? 2.0 : 10.0; }), 4, {});
  CHECK(hosts_with(host, VerdictKind::drift) == std::vector<int>{-1, 2});
  for (const soak::Verdict& v : host.findings) {
    CHECK(v.peer == -1);
    if (v.host == 2) CHECK(v.first_window == 5);
  }
  // Every pair alike: the world's own, and it says the pairs placed nothing.
  const auto alike = judge_soak(world_drift_with_pairs(0.3, [](int, int) { return 10.0; }), 4, {});
  CHECK(hosts_with(alike, VerdictKind::drift) == std::vector<int>{-1});
  REQUIRE_FALSE(alike.findings.empty());
  CHECK_THAT(alike.findings.front().evidence, ContainsSubstring("pair tests in windows 8-13 name no host or link"));
  // A pair figure survives its record.
  const SoakWindow back = nlohmann::json(world_drift_with_pairs(0.3, [](int, int) { return 10.0; }).back()).get<SoakWindow>();
  CHECK(std::any_of(back.figures.begin(), back.figures.end(),
                    [](const MeasurementRecord& f) { return f.soak->scope == SoakScope::pair && f.soak->host == 1 && f.soak->peer == 3; }));
  CHECK(wants_trace(alike));
  CHECK_FALSE(wants_trace(judge_soak(fake_windows(10, [](int w, int h) { return 10.0 * jitter(w, h); }), 4, {})));
}

TEST_CASE("soak verdicts: a world drift whose trace the soak's end cut short names no host and says so", "[soak]") {
  // A link slow between hosts 1 and 3, but the soak ended with only pairs (0,1) and (2,3)
  // measured: none of them is the slow one, and judging them would be judging half a trace.
  auto cut = world_drift_with_pairs(0.3, [](int a, int b) { return a == 1 && b == 3 ? 2.0 : 10.0; });
  for (SoakWindow& w : cut) {
    std::erase_if(w.figures, [](const MeasurementRecord& f) {
      return f.soak->scope == SoakScope::pair && !(f.soak->host == 0 && f.soak->peer == 1) &&
             !(f.soak->host == 2 && f.soak->peer == 3);
    });
  }
  const SoakVerdicts partial = judge_soak(cut, 4, {});
  CHECK(hosts_with(partial, VerdictKind::drift) == std::vector<int>{-1});
  REQUIRE_FALSE(partial.findings.empty());
  CHECK_THAT(partial.findings.front().evidence,
             ContainsSubstring("not traced: the pair tests in windows 8-13 reached 2 of the 6 pairs of hosts before the "
                               "soak ended (a longer --duration traces it)"));
  // No pair test at all after the drift: the same, in its own words.
  for (SoakWindow& w : cut) {
    std::erase_if(w.figures, [](const MeasurementRecord& f) { return f.soak->scope == SoakScope::pair; });
  }
  const SoakVerdicts none = judge_soak(cut, 4, {});
  REQUIRE_FALSE(none.findings.empty());
  CHECK_THAT(none.findings.front().evidence, ContainsSubstring("not traced: the soak ended before its pair tests began"));
}

TEST_CASE("soak verdicts: a throttle reason names the rank's host and the clock it fell to", "[soak]") {
  auto windows = fake_windows(6, [](int w, int h) { return 10.0 * jitter(w, h); });
  for (SoakWindow& w : windows) {
    for (RankSignals& s : w.signals) {
      s.gpu = GpuSignals{};
      s.gpu.sm_mhz = 1980;
      s.gpu.mem_mhz = 3201;
    }
  }
  windows[3].signals[5].gpu.sm_mhz = 1410;
  windows[3].signals[5].gpu.throttled[static_cast<std::size_t>(ThrottleReason::hw_thermal)] = true;
  windows[4].signals[5].gpu.throttled[static_cast<std::size_t>(ThrottleReason::sw_power_cap)] = true;
  const SoakVerdicts verdicts = judge_soak(windows, 4, {});
  REQUIRE(hosts_with(verdicts, VerdictKind::throttling) == std::vector<int>{2});
  const soak::Verdict& v = verdicts.findings.back();
  CHECK(v.windows == 2);
  CHECK(v.first_window == 3);
  CHECK(v.lowest_mhz == 1410);
  CHECK_THAT(v.evidence, ContainsSubstring("hw_thermal"));
  CHECK_THAT(v.evidence, ContainsSubstring("sw_power_cap"));
}

TEST_CASE("a soak window survives its JSON line", "[soak]") {
  auto windows = fake_windows(1, [](int, int) { return 3.5; });
  SoakWindow& w = windows.front();
  w.signals[1].gpu = GpuSignals{};
  w.signals[1].gpu.sm_mhz = 1755;
  w.signals[1].gpu.power_w = 612.5;
  w.signals[1].gpu.throttled[1] = true;
  w.slow_factors = {1, 4};
  const SoakWindow back = nlohmann::json::parse(nlohmann::json(w).dump()).get<SoakWindow>();
  CHECK(nlohmann::json(back) == nlohmann::json(w));
  CHECK(back.signals[1].gpu.power_w == Approx(612.5));
  CHECK_FALSE(back.signals[1].gpu.temperature_c);
  CHECK(back.signals[0].gpu.gap == Gap::no_gpu);
}

TEST_CASE("signals travel between ranks as numbers and back", "[soak]") {
  RankSignals s;
  s.gpu.sm_mhz = 1980;
  s.gpu.mem_mhz = 3201;
  s.gpu.temperature_c = 61;
  s.gpu.throttled[4] = true;
  s.cpu.busy_core_mhz = 3400;
  double fields[kSignalFields];
  encode_signals(s, fields);
  const RankSignals back = decode_signals(fields);
  CHECK(back.gpu.sm_mhz == 1980);
  CHECK_FALSE(back.gpu.power_w);
  CHECK(*back.gpu.temperature_c == 61);
  CHECK(back.gpu.throttled == s.gpu.throttled);
  CHECK(back.cpu.busy_core_mhz == 3400);
  RankSignals none;
  none.gpu.gap = Gap::unreadable;
  none.cpu.gap = Gap::not_built;
  encode_signals(none, fields);
  CHECK(decode_signals(fields).gpu.gap == Gap::unreadable);
  CHECK(decode_signals(fields).cpu.gap == Gap::not_built);
}

TEST_CASE("soak metrics: one HELP and TYPE per family, a verdict gauge per host and kind", "[soak]") {
  const auto windows = fake_windows(14, [](int w, int h) { return 10.0 * jitter(w, h) * (h == 2 && w >= 5 ? 0.3 : 1); });
  const std::vector<std::string> hosts{"h0", "h1", "h\"2", "h3"};
  const std::string text = soak_metrics(windows, hosts, judge_soak(windows, 4, {}));
  CHECK_THAT(text, ContainsSubstring("ncclsweep_soak_verdict{host=\"h\\\"2\",kind=\"drift\"} 1\n"));
  CHECK_THAT(text, ContainsSubstring("ncclsweep_soak_verdict{host=\"h0\",kind=\"drift\"} 0\n"));
  CHECK_THAT(text, ContainsSubstring("ncclsweep_soak_verdict{host=\"world\",kind=\"drift\"} 1\n"));
  CHECK_THAT(text, ContainsSubstring("ncclsweep_busbw_gbps{collective=\"all_reduce\",size=\"1048576\",scope=\"host\",host=\"h0\"}"));
  CHECK_THAT(text, ContainsSubstring("ncclsweep_soak_window 13\n"));
  const std::regex sample(R"(^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)+\})? [-+0-9.eEInfNa]+$)");
  int types = 0;
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    if (line.rfind("# TYPE ", 0) == 0) ++types;
    if (line[0] != '#') CHECK(std::regex_match(line, sample));
  }
  CHECK(types == 7);  // window, elapsed, end timestamp, busbw, algbw, verdict, outlier windows
}

TEST_CASE("durations: seconds, minutes, hours, days; nonsense refused", "[soak]") {
  CHECK(parse_duration("90", "--duration") == 90);
  CHECK(parse_duration("30s", "--duration") == 30);
  CHECK(parse_duration("1.5h", "--duration") == 5400);
  CHECK(parse_duration("2m", "--window") == 120);
  for (const char* bad : {"", "h", "-3s", "0", "5x", "nan"}) {
    INFO(bad);
    CHECK_THAT(usage_error_text([&] { parse_duration(bad, "--window"); }), ContainsSubstring("--window"));
  }
}

TEST_CASE("the slow fault's schedules: from a time on, or alternating", "[soak]") {
  const FaultInjection from = parse_fault_injection("5:slow=4@t=8");
  CHECK(from.rank == 5);
  CHECK(from.action == FaultAction::slow);
  CHECK(slow_factor_at(from, 7.9) == 1);
  CHECK(slow_factor_at(from, 8) == 4);
  CHECK(slow_factor_at(from, 1000) == 4);
  const FaultInjection flap = parse_fault_injection("1:slow=3@flap=2");
  CHECK(slow_factor_at(flap, 1) == 1);
  CHECK(slow_factor_at(flap, 3) == 3);
  CHECK(slow_factor_at(flap, 5) == 1);
  CHECK(slow_factor_at(flap, 7.5) == 3);
  CHECK(slow_factor_at(parse_fault_injection("2:slow=2"), 0) == 2);
  CHECK(slow_factor_at(parse_fault_injection("2:exit"), 10) == 1);
  CHECK(parse_fault_injection(to_text(from)).from_s == Approx(8));
  // @ followed by neither t= nor flap= names a point: slowed there only, at every time.
  const FaultInjection at_point = parse_fault_injection("1:slow=4@p2");
  CHECK(at_point.point == "p2");
  CHECK(at_point.from_s == 0);
  CHECK(at_point.flap_s == 0);
  for (const char* bad : {"1:slow=2.5", "1:slow=0", "1:slow=4@t=abc", "1:slow=1", "1:slow=4@flap=0", "1:slow=4@t=-1"}) {
    INFO(bad);
    CHECK_THAT(usage_error_text([&] { parse_fault_injection(bad); }), ContainsSubstring("--inject-fault"));
  }
}

// A real 3-minute soak on one H200 (tests/data/real/h200-soak-3m: 18 windows of 10 s,
// all_reduce and all_gather at 256 MiB, clocks, power and temperature every window).
// Clocks cannot be capped on that machine, so a cap and a sag are written into a copy of
// the record; the verdicts must find both, and nothing in the record as it is.
TEST_CASE("recorded H200 soak: nothing as recorded; a clock cap with a 20% sag from window 9 is found", "[soak][recorded]") {
  const SoakResults recorded = read_soak_results(NCCLSWEEP_TEST_DATA "/real/h200-soak-3m");
  REQUIRE(recorded.windows.size() == 18);
  for (const SoakWindow& w : recorded.windows) {
    REQUIRE(w.signals.size() == 1);
    CHECK(w.signals[0].gpu.gap == Gap::none);
    CHECK(w.signals[0].gpu.sm_mhz > 0);
  }
  CHECK_FALSE(judge_document(recorded.document, recorded.windows).anything());

  std::vector<SoakWindow> capped = recorded.windows;
  for (SoakWindow& w : capped) {
    if (w.index < 9) continue;
    for (MeasurementRecord& f : w.figures) {
      f.algbw_gbps *= 0.8, f.busbw_gbps *= 0.8;
      f.time_us.max /= 0.8;
      for (double* us : {&f.iteration_us->p50, &f.iteration_us->p90, &f.iteration_us->p99, &f.iteration_us->min,
                         &f.iteration_us->max}) {
        *us /= 0.8;
      }
    }
    w.signals[0].gpu.sm_mhz = 1410;
    w.signals[0].gpu.throttled[static_cast<std::size_t>(ThrottleReason::hw_thermal)] = true;
  }
  const SoakVerdicts verdicts = judge_document(recorded.document, capped);
  INFO([&] {
    std::ostringstream out;
    print_verdicts_table(out, host_names(recorded.document), verdicts);
    return out.str();
  }());
  bool busbw_drift = false, clock_drift = false, throttled = false;
  for (const soak::Verdict& v : verdicts.findings) {
    if (v.kind == VerdictKind::drift && v.series.find("busbw") != std::string::npos) {
      busbw_drift = true;
      CHECK(std::abs(v.first_window - 9) <= 1);
      CHECK(v.step == Approx(-0.2).margin(0.03));
    }
    if (v.kind == VerdictKind::drift && v.series.find("clock") != std::string::npos) clock_drift = true;
    if (v.kind == VerdictKind::throttling) {
      throttled = true;
      CHECK(v.first_window == 9);
      CHECK(v.windows == 9);
      CHECK(v.lowest_mhz == 1410);
      CHECK_THAT(v.evidence, ContainsSubstring("hw_thermal"));
    }
  }
  CHECK(busbw_drift);
  CHECK(clock_drift);
  CHECK(throttled);
}

TEST_CASE("a soak's run.json with an engine this ncclsweep does not know is refused naming the file") {
  const auto dir = ncclsweep::testing::scratch_root() / "soak-engine";
  std::filesystem::remove_all(dir);
  std::filesystem::copy(NCCLSWEEP_TEST_DATA "/real/h200-soak-3m", dir, std::filesystem::copy_options::recursive);
  std::ifstream in(dir / "run.json");
  nlohmann::json run = nlohmann::json::parse(in);
  in.close();
  CHECK(read_soak_results(dir).document.engine == EngineKind::nccl);
  run["engine"] = "gloo";
  std::ofstream(dir / "run.json") << run.dump();
  CHECK_THAT(usage_error_text([&] { (void)read_soak_results(dir); }),
             ContainsSubstring((dir / "run.json").string() + ": unknown engine 'gloo'"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a soak figure is a record: its rounds are its samples, the window its repeat", "[soak]") {
  const FixedTest test{&collective("all_reduce"), Bytes{1} << 20};
  // Per-call seconds of three rounds of 10 calls on 4 ranks: the median round is the figure.
  const MeasurementRecord r = rounds_record(test, 4, {2e-3, 1e-3, 4e-3}, 5, 10);
  CHECK(r.call_seconds() == Approx(2e-3));
  CHECK(r.iters == 30);
  CHECK(r.calls_per_sample == 10);
  REQUIRE(r.iteration_us);
  CHECK(r.iteration_us->min == Approx(1000));
  CHECK(r.iteration_us->max == Approx(4000));
  CHECK(r.algbw_gbps == Approx(static_cast<double>(r.size_bytes) / 2e-3 * 1e-9));
  CHECK(r.busbw_gbps == Approx(r.algbw_gbps * 2 * 3 / 4));

  SoakWindow window;
  window.index = 7;
  window.figures.push_back(r);
  window.figures.back().repeat = 7;
  window.figures.back().soak = SoakPlace{SoakScope::pair, 1, 3};
  const nlohmann::json line = window;
  CHECK(line.at("figures").at(0).at("soak") == nlohmann::json{{"scope", "pair"}, {"host", 1}, {"peer", 3}});
  const SoakWindow back = line.get<SoakWindow>();
  REQUIRE(back.figures.size() == 1);
  CHECK(place_of(back.figures[0]).peer == 3);
  CHECK(back.figures[0].iteration_us->max == Approx(4000));
  CHECK(nlohmann::json(back) == line);
  // A record that names another window than the one holding it is refused.
  nlohmann::json moved = line;
  moved["figures"][0]["repeat"] = 6;
  CHECK_THROWS_WITH(moved.get<SoakWindow>(), ContainsSubstring("names window 6 inside window 7"));
}

TEST_CASE("a soak window written before its figures were records reads as records", "[soak]") {
  const nlohmann::json old = nlohmann::json::parse(R"({"window": 2, "start_utc": "2026-12-01T00:00:00Z",
      "end_utc": "2026-12-01T00:00:02Z", "start_s": 4, "end_s": 6, "signals": [],
      "figures": [{"scope": "host", "host": 1, "collective": "all_gather", "size_bytes": 1048576, "ranks": 2,
                   "rounds": 5, "seconds": 0.001, "algbw_gbps": 1.048576, "busbw_gbps": 0.524288,
                   "low_gbps": 0.524288, "high_gbps": 2.097152}]})");
  const SoakWindow w = old.get<SoakWindow>();
  REQUIRE(w.figures.size() == 1);
  const MeasurementRecord& f = w.figures[0];
  CHECK(place_of(f).scope == SoakScope::host);
  CHECK(place_of(f).host == 1);
  CHECK(f.repeat == 2);
  CHECK(f.collective->name == "all_gather");
  CHECK(f.size_bytes == 1048576);
  CHECK(f.call_seconds() == Approx(0.001));
  CHECK(f.algbw_gbps == Approx(1.048576));
  CHECK(f.iteration_us->max == Approx(2000));  // the slowest round: half the median's algbw
  CHECK(f.iteration_us->min == Approx(500));
}
