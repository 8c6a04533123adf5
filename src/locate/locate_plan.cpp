#include "locate/locate_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/collective.hpp"
#include "core/errors.hpp"
#include "locate/noise.hpp"
#include "plan/scale_estimate.hpp"

namespace ncclsweep::locate {

void set_phases(LocateOptions& options, const std::string& phases) {
  options.host_phase = options.pairs_phase = false;
  std::stringstream list(phases);
  std::string phase;
  while (std::getline(list, phase, ',')) {
    if (phase == "host") {
      options.host_phase = true;
    } else if (phase == "pairs") {
      options.pairs_phase = true;
    } else if (phase == "rails") {
      options.pairs_phase = options.by_rail = true;
    } else {
      throw UsageError("--phases: unknown phase '" + phase + "'", "use host, pairs or both: --phases host,pairs");
    }
  }
  if (!options.host_phase && !options.pairs_phase) {
    throw UsageError("--phases names no phase", "use host, pairs or both: --phases host,pairs");
  }
}

std::vector<FixedTest> tests_for(LocatePhase phase, const std::vector<Bytes>& sizes) {
  std::vector<const char*> collectives{"sendrecv"};
  if (phase == LocatePhase::host) collectives = {"all_reduce", "all_gather", "sendrecv"};
  if (phase == LocatePhase::pairs) collectives = {"all_gather", "sendrecv"};
  std::vector<FixedTest> tests;
  for (const Bytes size : sizes) {
    for (const char* c : collectives) tests.push_back({&collective(c), size});
  }
  return tests;
}

double typical_group_seconds(const std::vector<double>& warmup_call_s, const std::vector<bool>& measured) {
  std::vector<double> times;
  for (std::size_t g = 0; g < warmup_call_s.size(); ++g) {
    if (measured[g] && warmup_call_s[g] > 0) times.push_back(warmup_call_s[g]);
  }
  return times.size() < 2 ? 0 : lower_median(times);
}

std::vector<int> iters_per_group(const std::vector<double>& warmup_call_s, const std::vector<bool>& measured, int iters) {
  std::vector<int> out(warmup_call_s.size(), iters);
  const double typical = typical_group_seconds(warmup_call_s, measured);
  if (typical <= 0) return out;
  for (std::size_t g = 0; g < warmup_call_s.size(); ++g) {
    if (warmup_call_s[g] <= kSlowGroupFactor * typical || warmup_call_s[g] * iters <= kUncutRepeatSeconds) continue;
    const double calls = std::max(kSlowGroupFactor * typical * iters, kUncutRepeatSeconds) / warmup_call_s[g];
    out[g] = std::clamp(static_cast<int>(calls), 1, iters);
  }
  return out;
}

std::vector<Step> plan_steps(const HostLayout& layout, const LocateOptions& options) {
  std::vector<Step> steps;
  if (options.host_phase) {
    steps.push_back(host_step(layout));
    for (Step& step : gpu_pair_steps(layout)) steps.push_back(std::move(step));
  }
  if (!options.pairs_phase) return steps;
  const auto rounds = options.pairs == PairSchedule::ring ? ring_rounds(layout.host_count()) : round_robin(layout.host_count());
  for (std::size_t r = 0; r < rounds.size(); ++r) steps.push_back(pairs_step(layout, rounds[r], static_cast<int>(r) + 1));
  if (options.by_rail) {
    for (std::size_t r = 0; r < rounds.size(); ++r) steps.push_back(rails_step(layout, rounds[r], static_cast<int>(r) + 1));
  }
  return steps;
}

HostLayout uniform_layout(int hosts, int ranks_per_host) {
  std::vector<std::string> names;
  for (int h = 0; h < hosts; ++h) {
    for (int r = 0; r < ranks_per_host; ++r) names.push_back("host" + std::to_string(h));
  }
  return layout_from_hosts(names);
}

namespace {

// A split exchanges every rank's colour over the whole world (NCCL's ncclCommSplit
// all-gathers it around the parent's bootstrap ring, a step per rank; MPI_Comm_split's
// all-gather takes fewer steps), then initialises each group's communicator, which
// grows with that group's ranks only. Per world rank, a ring step of a few bytes.
constexpr double kSplitExchangePerWorldRankS = 50e-6;

// One split of the world as the estimate needs it: its measured groups and the largest.
struct StepShape {
  LocatePhase phase = LocatePhase::host;
  long long measured_groups = 0;
  int group_ranks = 0;
};

std::vector<StepShape> step_shapes(const std::vector<int>& host_sizes, const LocateOptions& options) {
  std::vector<StepShape> shapes;
  const int hosts = static_cast<int>(host_sizes.size());
  if (options.host_phase) {
    StepShape host{LocatePhase::host, 0, 0};
    for (const int size : host_sizes) {
      if (size < 2) continue;
      ++host.measured_groups;
      host.group_ranks = std::max(host.group_ranks, size);
    }
    shapes.push_back(host);
    // The gpus rounds: each host of 3 or more ranks pairs neighbouring ranks in its own
    // ring rounds; the step r measures every host's pairs of round r.
    std::map<int, std::vector<long long>> rounds_of_size;
    std::size_t rounds = 0;
    for (const int size : host_sizes) {
      if (size < 3) continue;
      auto [it, fresh] = rounds_of_size.try_emplace(size);
      if (fresh) it->second = ring_round_pairs(size);
      rounds = std::max(rounds, it->second.size());
    }
    for (std::size_t r = 0; r < rounds; ++r) {
      StepShape gpus{LocatePhase::gpus, 0, 2};
      for (const int size : host_sizes) {
        if (size < 3) continue;
        const auto& mine = rounds_of_size.at(size);
        if (r < mine.size()) gpus.measured_groups += mine[r];
      }
      shapes.push_back(gpus);
    }
  }
  if (!options.pairs_phase) return shapes;
  std::vector<int> sorted = host_sizes;
  std::sort(sorted.rbegin(), sorted.rend());
  const int two_largest = sorted.size() >= 2 ? sorted[0] + sorted[1] : 0;
  const int smallest = sorted.empty() ? 0 : sorted.back();
  const std::vector<long long> rounds = options.pairs == PairSchedule::ring ? ring_round_pairs(hosts) : round_robin_pairs(hosts);
  for (const long long pairs : rounds) shapes.push_back({LocatePhase::pairs, pairs, two_largest});
  if (options.by_rail) {
    // A rail both hosts have is one measured pair of ranks; uniform hosts have them all.
    for (const long long pairs : rounds) shapes.push_back({LocatePhase::rails, pairs * smallest, 2});
  }
  return shapes;
}

}  // namespace

LocateEstimate estimate_locate(const std::vector<int>& host_sizes, const LocateOptions& options, double busbw_bytes_per_s) {
  ScaleModel model;  // the documented defaults of docs/scale.md
  model.ranks = 0;
  for (const int size : host_sizes) model.ranks += size;
  const auto log2_of = [](int n) { return std::log2(static_cast<double>(std::max(n, 1))); };
  LocateEstimate e;
  e.launch_s = model.launch_base_s + model.launch_per_rank_s * model.ranks + model.init_base_s +
               model.init_per_rank_s * model.ranks;
  const double coordination = model.coordination_base_s + model.coordination_per_log2_rank_s * log2_of(model.ranks);
  for (const StepShape& step : step_shapes(host_sizes, options)) {  // one pass
    ++e.steps;
    if (step.phase == LocatePhase::pairs) ++e.rounds;
    e.coordination_s += coordination;  // one reduction of every test's times per step
    // Every group of the step runs at once: the step takes its slowest (largest) group's time.
    double step_s = model.init_base_s + model.init_per_rank_s * step.group_ranks + kSplitExchangePerWorldRankS * model.ranks;
    e.per_split_s = std::max(e.per_split_s, step_s);
    e.splits_s += step_s;
    for (const FixedTest& test : tests_for(step.phase, options.sizes)) {
      if (step.measured_groups == 0) continue;
      const CollectiveKind& kind = *test.collective;
      const double slowest = model.call_latency_s + model.latency_per_log2_rank_s * log2_of(step.group_ranks) +
                             seconds_at_busbw(kind, test.bytes, busbw_bytes_per_s, step.group_ranks);
      e.measurements += step.measured_groups * options.repeats;
      const double calls = options.warmup + static_cast<double>(options.repeats) * options.iters;
      e.collectives_s += calls * slowest;
      step_s += calls * slowest;
    }
    step_s += coordination;
    if (step.phase == LocatePhase::pairs) e.per_round_s = step_s;
  }
  // Every pass repeats the splits and the tests.
  e.steps *= options.passes;
  e.rounds *= options.passes;
  e.measurements *= options.passes;
  e.splits_s *= options.passes;
  e.collectives_s *= options.passes;
  e.coordination_s *= options.passes;
  return e;
}

}  // namespace ncclsweep::locate
