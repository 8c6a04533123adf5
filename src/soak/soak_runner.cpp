#include "soak/soak_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/collective.hpp"
#include "core/iteration_stats.hpp"
#include "core/utc_time.hpp"
#include "locate/tournament.hpp"
#include "measure/fixed_test.hpp"

namespace ncclsweep::soak {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kEmpty = -1e300;  // a slot another rank fills; max over ranks keeps that rank's

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

void encode_signals(const RankSignals& s, double* f) {
  f[0] = static_cast<double>(s.gpu.gap);
  f[1] = s.gpu.sm_mhz;
  f[2] = s.gpu.mem_mhz;
  f[3] = s.gpu.power_w.value_or(-1);
  f[4] = s.gpu.temperature_c.value_or(-1000);
  f[5] = static_cast<double>(s.cpu.gap);
  f[6] = s.cpu.busy_core_mhz;
  for (std::size_t i = 0; i < kThrottleReasons; ++i) f[7 + i] = s.gpu.throttled[i] ? 1 : 0;
}

RankSignals decode_signals(const double* f) {
  RankSignals s;
  s.gpu.gap = static_cast<Gap>(static_cast<int>(f[0]));
  s.gpu.sm_mhz = static_cast<int>(f[1]);
  s.gpu.mem_mhz = static_cast<int>(f[2]);
  if (f[3] >= 0) s.gpu.power_w = f[3];
  if (f[4] > -1000) s.gpu.temperature_c = f[4];
  s.cpu.gap = static_cast<Gap>(static_cast<int>(f[5]));
  s.cpu.busy_core_mhz = f[6];
  for (std::size_t i = 0; i < kThrottleReasons; ++i) s.gpu.throttled[i] = f[7 + i] > 0;
  return s;
}

bool wants_trace(const SoakVerdicts& verdicts) {
  return verdicts.has(-1, VerdictKind::drift) || verdicts.has(-1, VerdictKind::flap);
}

namespace {

// The pair tests of a trace: every round of locate's pairs schedule as one more
// sub-communicator each (comm 2 + round), and where each pair's figures go.
struct PairTrace {
  std::vector<locate::Step> steps;          // one per round
  std::vector<locate::HostPair> pairs;      // every pair of hosts, in slot order
  std::vector<std::vector<CollectiveCall>> calls;  // per round, per test: this rank's call
  std::vector<int> my_pair;                 // per round: this rank's pair's slot, -1 idle
  std::vector<bool> faulted;                // per round: the testing aid's rank is in this rank's group

  static PairTrace plan(const locate::HostLayout& layout, int rank, int faulted_rank,
                        const std::vector<FixedTest>& tests) {
    PairTrace t;
    const std::vector<locate::Round> rounds = locate::round_robin(layout.host_count());
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      t.steps.push_back(locate::pairs_step(layout, rounds[r], static_cast<int>(r) + 1));
      for (const locate::HostPair& pair : rounds[r].pairs) t.pairs.push_back(pair);
    }
    std::sort(t.pairs.begin(), t.pairs.end());
    for (const locate::Step& step : t.steps) {
      const locate::Group& group =
          step.groups[static_cast<std::size_t>(step.color_of_rank[static_cast<std::size_t>(rank)])];
      std::vector<CollectiveCall> calls;
      for (const FixedTest& test : tests) {
        calls.push_back(fixed_call(test, static_cast<int>(group.ranks.size()), 2 + static_cast<int>(t.calls.size())));
      }
      t.calls.push_back(std::move(calls));
      int slot = -1;
      if (group.measured) {
        const locate::HostPair mine{group.hosts[0], group.hosts[1]};
        slot = static_cast<int>(std::find(t.pairs.begin(), t.pairs.end(), mine) - t.pairs.begin());
      }
      t.my_pair.push_back(slot);
      t.faulted.push_back(std::find(group.ranks.begin(), group.ranks.end(), faulted_rank) != group.ranks.end());
    }
    return t;
  }

  // Every rank's colours: its host's group first (comm 1), then one per round.
  std::vector<int> colors(const locate::Step& host, int rank) const {
    std::vector<int> out{host.color_of_rank[static_cast<std::size_t>(rank)]};
    for (const locate::Step& step : steps) out.push_back(step.color_of_rank[static_cast<std::size_t>(rank)]);
    return out;
  }
};

}  // namespace

SoakEnd run_soak(Engine& engine, Coordinator& ranks, const locate::HostLayout& layout, const SoakOptions& options,
                 WindowSampler& sampler, const FaultInjection& fault, const TimelineStart& start,
                 const StopRequest& stop, const WindowDone& on_window, const TraceRequest& trace) {
  const int rank = ranks.rank(), world = ranks.size();
  const int my_host = layout.host_of_rank[static_cast<std::size_t>(rank)];
  const locate::Step step = locate::host_step(layout);
  const locate::Group& my_group = step.groups[static_cast<std::size_t>(step.color_of_rank[static_cast<std::size_t>(rank)])];
  const int host_ranks = static_cast<int>(my_group.ranks.size());
  const bool fault_on_my_host = fault.action == FaultAction::slow && fault.rank >= 0 && fault.rank < world &&
                                layout.host_of_rank[static_cast<std::size_t>(fault.rank)] == my_host;
  const bool fault_in_world = fault.action == FaultAction::slow && fault.rank >= 0 && fault.rank < world;
  engine.split({step.color_of_rank[static_cast<std::size_t>(rank)]});

  std::vector<FixedTest> tests;
  for (const CollectiveKind* kind : options.collectives) {
    for (const Bytes bytes : options.sizes) tests.push_back({kind, bytes});
  }
  std::vector<CollectiveCall> world_calls, host_calls;
  for (const FixedTest& t : tests) {
    world_calls.push_back(fixed_call(t, world, 0));
    host_calls.push_back(fixed_call(t, host_ranks, 1));
  }
  warm_up(engine, world_calls, options.warmup);
  warm_up(engine, host_calls, options.warmup);

  const std::size_t hosts = static_cast<std::size_t>(layout.host_count());
  const PairTrace pairs = layout.host_count() >= 3 ? PairTrace::plan(layout, rank, fault_in_world ? fault.rank : -1, tests)
                                                   : PairTrace{};
  // Slot 0 the world, then each host, then each pair of hosts (filled while tracing).
  const std::size_t per_test = 1 + hosts + pairs.pairs.size();
  bool tracing = false;
  std::size_t next_round = 0;  // the pairs round of the next round of a traced window
  const auto launch_start = Clock::now();
  const auto monotonic = [] { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); };
  // Rank 0's value of `mine`, on every rank.
  const auto rank0 = [&](double mine) { return ranks.max_each({rank == 0 ? mine : kEmpty}).front(); };

  // From the next window on, the pairs too: one split for every round, warmed once. Asked
  // before the first window as well: a resumed soak's earlier windows may already want it.
  const auto start_trace_if_asked = [&] {
    if (tracing || pairs.steps.empty() || rank0(trace && rank == 0 && trace() ? 1 : 0) <= 0) return;
    tracing = true;
    engine.split(pairs.colors(step, rank));
    for (std::size_t r = 0; r < pairs.steps.size() && options.warmup > 0; ++r) {
      warm_up(engine, pairs.calls[r], options.warmup);
    }
  };
  start_trace_if_asked();
  double elapsed = start.elapsed_s;
  for (int index = start.next_window; elapsed < options.duration_s; ++index) {
    SoakWindow window;
    window.index = index;
    window.launch = start.launch;
    window.start_utc = iso_utc(std::chrono::system_clock::now());
    window.start_s = elapsed;
    window.monotonic_start_s = rank0(monotonic());
    const double factor = slow_factor_at(fault, window.start_s);
    const double world_factor = fault_in_world ? factor : 1, host_factor = fault_on_my_host ? factor : 1;
    const auto window_start = Clock::now();
    std::vector<std::vector<double>> rounds(tests.size() * per_test);  // per slot, each round's seconds
    bool stopping = false;
    for (bool more = true; more;) {
      std::vector<double> slots(tests.size() * per_test + 2, kEmpty);
      const std::size_t pair_round = tracing ? next_round++ % pairs.steps.size() : 0;
      for (std::size_t t = 0; t < tests.size(); ++t) {
        engine.slow_down(world_factor);
        slots[t * per_test] = seconds_per_call(engine, world_calls[t], options.iters);
        engine.slow_down(host_factor);
        slots[t * per_test + 1 + static_cast<std::size_t>(my_host)] =
            seconds_per_call(engine, host_calls[t], options.iters);
        if (!tracing) continue;
        // Every rank runs its group of this pairs round (an idle host's ranks alone).
        engine.slow_down(pairs.faulted[pair_round] ? factor : 1);
        const double seconds = seconds_per_call(engine, pairs.calls[pair_round][t], options.iters);
        if (const int pair = pairs.my_pair[pair_round]; pair >= 0) {
          slots[t * per_test + 1 + hosts + static_cast<std::size_t>(pair)] = seconds;
        }
      }
      slots[slots.size() - 2] = stop ? stop() : 0;
      slots.back() = rank == 0 ? seconds_since(window_start) : kEmpty;
      slots = ranks.max_each(slots);
      for (std::size_t i = 0; i < rounds.size(); ++i) {
        if (slots[i] > kEmpty) rounds[i].push_back(slots[i]);  // a pair not measured this round has none
      }
      stopping = stopping || slots[slots.size() - 2] > 0;
      more = slots.back() < options.window_s;
    }
    engine.slow_down(1);

    // Each test's record on each communicator: the window is its repeat, its rounds its samples.
    const auto add_figure = [&](const FixedTest& test, int group_ranks, const std::vector<double>& seconds,
                                SoakPlace place) {
      MeasurementRecord f = rounds_record(test, group_ranks, seconds, options.warmup, options.iters);
      f.repeat = index;
      f.soak = place;
      window.figures.push_back(std::move(f));
    };
    for (std::size_t t = 0; t < tests.size(); ++t) {
      add_figure(tests[t], world, rounds[t * per_test], {SoakScope::world, -1, -1});
      for (std::size_t h = 0; h < hosts; ++h) {
        const int group_ranks = static_cast<int>(layout.host_ranks[h].size());
        if (group_ranks < 2) continue;  // a lone rank has no host communicator to measure
        add_figure(tests[t], group_ranks, rounds[t * per_test + 1 + h], {SoakScope::host, static_cast<int>(h), -1});
      }
      for (std::size_t p = 0; p < pairs.pairs.size(); ++p) {
        const auto& seconds = rounds[t * per_test + 1 + hosts + p];
        if (seconds.empty()) continue;
        const locate::HostPair& pair = pairs.pairs[p];
        const int group_ranks = static_cast<int>(layout.host_ranks[static_cast<std::size_t>(pair.a)].size() +
                                                 layout.host_ranks[static_cast<std::size_t>(pair.b)].size());
        add_figure(tests[t], group_ranks, seconds, {SoakScope::pair, pair.a, pair.b});
      }
    }

    RankSignals mine = sampler.sample();
    std::vector<double> fields(static_cast<std::size_t>(world) * (kSignalFields + 1), kEmpty);
    encode_signals(mine, &fields[static_cast<std::size_t>(rank) * (kSignalFields + 1)]);
    fields[static_cast<std::size_t>(rank) * (kSignalFields + 1) + kSignalFields] = std::max(world_factor, host_factor);
    fields = ranks.max_each(fields);
    for (int r = 0; r < world; ++r) {
      const double* f = &fields[static_cast<std::size_t>(r) * (kSignalFields + 1)];
      RankSignals s = decode_signals(f);
      s.rank = r;
      s.host = layout.host_of_rank[static_cast<std::size_t>(r)];
      window.signals.push_back(s);
      window.slow_factors.push_back(f[kSignalFields]);
    }
    if (fault.action != FaultAction::slow) window.slow_factors.clear();
    elapsed = start.elapsed_s + rank0(seconds_since(launch_start));
    window.end_s = elapsed;
    const auto now = std::chrono::system_clock::now();
    window.end_utc = iso_utc(now);
    window.end_unix_s = std::chrono::duration<double>(now.time_since_epoch()).count();
    if (on_window) on_window(window);
    if (stopping) return SoakEnd::stopped;
    start_trace_if_asked();
  }
  return SoakEnd::duration;
}

}  // namespace ncclsweep::soak
