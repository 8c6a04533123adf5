#include "locate/phase_runner.hpp"

#include <chrono>

#include "core/collective.hpp"
#include "measure/fixed_test.hpp"

namespace ncclsweep::locate {
namespace {

constexpr int kStepComm = 1;  // the step's one sub-communicator

std::vector<std::string> host_names(const HostLayout& layout, const Group& group) {
  std::vector<std::string> names;
  for (const int rank : group.ranks) {
    names.push_back(layout.hosts[static_cast<std::size_t>(layout.host_of_rank[static_cast<std::size_t>(rank)])]);
  }
  return names;
}

// Every test of the step on every group at once; every rank returns every group's
// repeats. The repeats are interleaved (repeat 1 of every test, then repeat 2, ...), so
// a burst of load on the machine touches one repeat of several tests rather than every
// repeat of one, and the median of the repeats leaves it out.
std::vector<MeasurementRecord> run_step_tests(Engine& engine, Coordinator& ranks, const Step& step,
                                        const LocateOptions& options, int pass,
                                        const std::function<void(const std::vector<SlowWarmUp>&)>& on_slow) {
  const int mine = step.color_of_rank[static_cast<std::size_t>(ranks.rank())];
  const Group& group = step.groups[static_cast<std::size_t>(mine)];
  const std::vector<FixedTest> tests = tests_for(step.phase, options.sizes);
  std::vector<CollectiveCall> calls;
  for (const FixedTest& test : tests) calls.push_back(fixed_call(test, static_cast<int>(group.ranks.size()), kStepComm));
  const std::size_t repeats = static_cast<std::size_t>(options.repeats), groups = step.groups.size();
  // The last warm-up call is timed (the first may set up connections), and the figures
  // shared, so every rank of a group agrees on how many calls the group times
  // (iters_per_group): a far slower group gets fewer.
  std::vector<double> warm(tests.size() * groups, 0.0);
  if (options.warmup > 0) {
    for (std::size_t t = 0; t < tests.size(); ++t) {
      warm_up(engine, {calls[t]}, options.warmup - 1);
      warm[t * groups + static_cast<std::size_t>(mine)] = seconds_per_call(engine, calls[t], 1);
    }
    warm = ranks.max_each(warm);
  }
  std::vector<bool> measured;
  for (const Group& g : step.groups) measured.push_back(g.measured);
  std::vector<std::vector<int>> iters;  // [test][group]
  std::vector<SlowWarmUp> slow;
  for (std::size_t t = 0; t < tests.size(); ++t) {
    const auto first = warm.begin() + static_cast<std::ptrdiff_t>(t * groups);
    const std::vector<double> times(first, first + static_cast<std::ptrdiff_t>(groups));
    iters.push_back(iters_per_group(times, measured, options.iters));
    const double typical = typical_group_seconds(times, measured);
    for (std::size_t g = 0; g < groups; ++g) {
      if (!measured[g] || iters[t][g] == options.iters) continue;
      slow.push_back({step.groups[g].hosts, test_name(*tests[t].collective, tests[t].bytes), times[g], typical,
                      iters[t][g]});
    }
  }
  if (!slow.empty() && on_slow) on_slow(slow);
  // Slot (test, group, repeat): this rank's per-call time; the maximum over ranks is the
  // group's time, since a collective ends when its slowest member does.
  const auto slot = [&](std::size_t t, std::size_t g, std::size_t r) { return (t * groups + g) * repeats + r; };
  std::vector<double> slots(tests.size() * groups * repeats, 0.0);
  for (std::size_t r = 0; r < repeats; ++r) {
    for (std::size_t t = 0; t < tests.size(); ++t) {
      slots[slot(t, static_cast<std::size_t>(mine), r)] =
          seconds_per_call(engine, calls[t], iters[t][static_cast<std::size_t>(mine)]);
    }
  }
  slots = ranks.max_each(slots);
  std::vector<MeasurementRecord> out;
  for (std::size_t t = 0; t < tests.size(); ++t) {
    for (std::size_t g = 0; g < groups; ++g) {
      const Group& measured = step.groups[g];
      if (!measured.measured) continue;
      const int group_ranks = static_cast<int>(measured.ranks.size());
      for (std::size_t r = 0; r < repeats; ++r) {
        MeasurementRecord m = fixed_record(tests[t], group_ranks, slots[slot(t, g, r)], options.warmup, iters[t][g]);
        m.repeat = (pass - 1) * options.repeats + static_cast<int>(r);
        m.locate = LocatePlace{step.phase, step.round, measured.hosts, measured.rail, measured.ranks, pass};
        out.push_back(std::move(m));
      }
    }
  }
  return out;
}

}  // namespace

LocateRun run_locate(Engine& engine, Coordinator& ranks, const HostLayout& layout, const LocateOptions& options,
                     const SlowFault& fault, const StepDone& on_step, const SlowWarmUps& on_slow) {
  LocateRun run;
  const std::vector<Step> steps = plan_steps(layout, options);
  const int rank = ranks.rank();
  const int total = static_cast<int>(steps.size()) * options.passes;
  for (int pass = 1; pass <= options.passes; ++pass) {
    for (const Step& step : steps) {
      const auto start = std::chrono::steady_clock::now();
      const int mine = step.color_of_rank[static_cast<std::size_t>(rank)];
      engine.split({mine});
      if (fault.active()) {
        const Group& group = step.groups[static_cast<std::size_t>(mine)];
        engine.slow_down(slowdown_for(fault, group.ranks, host_names(layout, group)));
      }
      const std::chrono::duration<double> split = std::chrono::steady_clock::now() - start;
      const std::size_t first = run.measurements.size();
      const int index = static_cast<int>(run.steps.size());
      const auto slow = [&](const std::vector<SlowWarmUp>& groups) {
        if (on_slow) on_slow(step, groups, index, total);
      };
      for (MeasurementRecord& m : run_step_tests(engine, ranks, step, options, pass, slow)) {
        run.measurements.push_back(std::move(m));
      }
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      // Rank 0's clock for everyone, so all ranks hold the same result.
      const std::vector<double> times = ranks.max_each({rank == 0 ? took.count() : 0.0, rank == 0 ? split.count() : 0.0});
      const StepTime time{step.phase, step.round, pass, times[0], times[1]};
      run.steps.push_back(time);
      if (on_step) {
        on_step(time, std::span<const MeasurementRecord>(run.measurements).subspan(first), static_cast<int>(run.steps.size()) - 1,
                total);
      }
    }
  }
  if (fault.active()) engine.slow_down(1);
  return run;
}

}  // namespace ncclsweep::locate
