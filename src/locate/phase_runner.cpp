#include "locate/phase_runner.hpp"

#include <chrono>

#include "core/collective.hpp"
#include "core/dtype.hpp"

namespace ncclsweep::locate {
namespace {

constexpr std::string_view kDtype = "float32";

CollectiveCall call_for(const LocateTest& test, int group_ranks) {
  CollectiveCall call;
  call.kind = &collective(test.collective);
  call.dtype = &data_type(kDtype);
  call.count = count_per_rank(*call.kind, test.bytes, group_ranks, call.dtype->bytes);
  call.comm = 1;  // the step's one sub-communicator
  return call;
}

std::vector<std::string> host_names(const HostLayout& layout, const Group& group) {
  std::vector<std::string> names;
  for (const int rank : group.ranks) {
    names.push_back(layout.hosts[static_cast<std::size_t>(layout.host_of_rank[static_cast<std::size_t>(rank)])]);
  }
  return names;
}

// One test on every group of the step at once; every rank returns every group's repeats.
std::vector<Measurement> run_test(Engine& engine, Coordinator& ranks, const Step& step, const LocateTest& test,
                                  const LocateOptions& options) {
  const int mine = step.color_of_rank[static_cast<std::size_t>(ranks.rank())];
  const Group& group = step.groups[static_cast<std::size_t>(mine)];
  const CollectiveCall call = call_for(test, static_cast<int>(group.ranks.size()));
  if (options.warmup > 0) engine.run_timed(call, options.warmup);
  // Slot (group, repeat): this rank's per-call time; the maximum over ranks is the
  // group's time, since a collective ends when its slowest member does.
  const std::size_t repeats = static_cast<std::size_t>(options.repeats);
  std::vector<double> slots(step.groups.size() * repeats, 0.0);
  for (std::size_t r = 0; r < repeats; ++r) {
    const TimedIterations timed = engine.run_timed(call, options.iters);
    slots[static_cast<std::size_t>(mine) * repeats + r] = timed.device_seconds / options.iters;
  }
  slots = ranks.max_each(slots);
  std::vector<Measurement> out;
  for (std::size_t g = 0; g < step.groups.size(); ++g) {
    const Group& measured = step.groups[g];
    if (!measured.measured) continue;
    const int group_ranks = static_cast<int>(measured.ranks.size());
    const CollectiveCall group_call = call_for(test, group_ranks);
    const Bytes total = total_bytes(*group_call.kind, group_call.count, group_ranks, group_call.dtype->bytes);
    for (std::size_t r = 0; r < repeats; ++r) {
      Measurement m;
      m.phase = step.phase;
      m.round = step.round;
      m.hosts = measured.hosts;
      m.rail = measured.rail;
      m.ranks = measured.ranks;
      m.collective = test.collective;
      m.bytes = total;
      m.repeat = static_cast<int>(r);
      m.seconds = slots[g * repeats + r];
      m.busbw_gbps = m.seconds > 0 ? static_cast<double>(total) * group_call.kind->busbw_factor(group_ranks) /
                                         m.seconds / 1e9
                                   : 0;
      out.push_back(m);
    }
  }
  return out;
}

}  // namespace

LocateRun run_locate(Engine& engine, Coordinator& ranks, const HostLayout& layout, const LocateOptions& options,
                     const SlowFault& fault, const StepDone& on_step) {
  LocateRun run;
  const std::vector<Step> steps = plan_steps(layout, options);
  const int rank = ranks.rank();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    const auto start = std::chrono::steady_clock::now();
    const int mine = step.color_of_rank[static_cast<std::size_t>(rank)];
    engine.split({mine});
    if (fault.active()) {
      const Group& group = step.groups[static_cast<std::size_t>(mine)];
      engine.slow_down(slowdown_for(fault, rank, group.ranks, host_names(layout, group)));
    }
    for (const LocateTest& test : tests_for(step.phase, options.sizes)) {
      for (Measurement& m : run_test(engine, ranks, step, test, options)) run.measurements.push_back(std::move(m));
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    StepTime time{step.phase, step.round, took.count()};
    // Rank 0's clock for everyone, so all ranks hold the same result.
    time.seconds = ranks.max_each({rank == 0 ? time.seconds : 0.0}).front();
    run.steps.push_back(time);
    if (on_step) on_step(time, static_cast<int>(i), static_cast<int>(steps.size()));
  }
  if (fault.active()) engine.slow_down(1);
  return run;
}

}  // namespace ncclsweep::locate
