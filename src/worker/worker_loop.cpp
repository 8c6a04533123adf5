#include "worker/worker_loop.hpp"

#include <unistd.h>  // environ

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "results/record_json.hpp"
#include "verify/nccl_log.hpp"
#include "verify/unexpected_environment.hpp"
#include "worker/relay_coordinator.hpp"
#include "worker/resource_probe.hpp"

namespace ncclsweep {
namespace {

// Status codes ordered so the maximum over ranks is the status to report.
enum Code : std::uint8_t { kApplied = 0, kByConfig = 0, kNotRead = 1, kMismatch = 2 };

// A re-read variable counts only from the lines this point's init logged, never from an
// earlier point's; a process-cached one is logged once, at the process's first init.
const NcclLogFacts& facts_for(const SettingOutcome& s, const NcclLogFollower& log) {
  return s.kind == SettingKind::env_reread ? log.point_facts() : log.process_facts();
}

std::vector<std::uint8_t> local_codes(const PointSpec& point, const NcclLogFollower& log, const Engine& engine) {
  std::vector<std::uint8_t> codes;
  for (const SettingOutcome& s : point.settings) {
    if (s.kind == SettingKind::config_field) {
      codes.push_back(kByConfig);
      continue;
    }
    // A variable the engine reads itself (the testing aid) is what the engine says it
    // runs with; every other one, what NCCL's log says NCCL took.
    if (const auto in_effect = engine.setting_in_effect(s.name)) {
      codes.push_back(*in_effect == s.value ? kApplied : kMismatch);
      continue;
    }
    switch (verify_env_setting(facts_for(s, log), s.name, s.value)) {
      case SettingStatus::applied: codes.push_back(kApplied); break;
      case SettingStatus::not_read: codes.push_back(kNotRead); break;
      default: codes.push_back(kMismatch);
    }
  }
  return codes;
}

SettingStatus status_of(const SettingOutcome& s, std::uint8_t code) {
  if (code == kMismatch) return SettingStatus::mismatch;
  if (code == kNotRead) return SettingStatus::not_read;
  return s.kind == SettingKind::config_field ? SettingStatus::by_config : SettingStatus::applied;
}

std::set<std::string> named_variables(const PointSpec& point) {
  std::set<std::string> names;
  for (const SettingOutcome& s : point.settings) {
    if (s.kind != SettingKind::config_field) names.insert(s.name);
  }
  return names;
}

// Verifies on every rank and fills the outcome's settings; true when none mismatched.
bool verify(const PointSpec& point, PointContext& context, PointOutcome& outcome) {
  context.nccl_log.update();
  const NcclLogFacts& facts = context.nccl_log.process_facts();
  std::vector<std::uint8_t> codes = local_codes(point, context.nccl_log, context.engine);
  const std::vector<std::string> unexpected = unexpected_nccl_variables(
      outcome.environment, context.nccl_log.point_facts(), named_variables(point), context.run_environment);
  codes.push_back(unexpected.empty() ? 0 : 1);
  const std::vector<std::uint8_t> worst = context.ranks.max_codes(std::move(codes));
  bool ok = true;
  outcome.settings = point.settings;
  for (std::size_t i = 0; i < outcome.settings.size(); ++i) {
    outcome.settings[i].status = status_of(outcome.settings[i], worst[i]);
    ok = ok && worst[i] != kMismatch;
  }
  outcome.unexpected_environment = unexpected;
  if (unexpected.empty() && worst.back() != 0) {
    outcome.unexpected_environment.push_back("another rank: an NCCL_ variable the point does not name (see its NCCL log)");
  }
  outcome.coll_channels = facts.coll_channels;
  outcome.transports.assign(facts.transports.begin(), facts.transports.end());
  outcome.algorithms.clear();
  for (const auto& [call, choice] : facts.algorithms) outcome.algorithms.push_back(call + ": " + choice);
  return ok;
}

// NCCL may set variables itself during an init (those of its config file, once per
// process): the init saw them, and from now on they belong to the run.
void adopt_variables_set_during_init(PointContext& context, PointOutcome& outcome) {
  if (!context.engine.reads_process_environment()) return;
  for (const auto& [name, value] : recorded_environment(environ)) {
    if (outcome.environment.emplace(name, value).second) context.run_environment.emplace(name, value);
  }
}

// After `failure` in the init or a call: when this rank's NCCL log shows that NCCL
// refused one of the point's values, throws PointRejected with a mismatch outcome
// (this rank's view: the other ranks may be gone); otherwise returns.
void throw_if_rejected(const PointSpec& point, PointContext& context, PointOutcome& outcome,
                       const RuntimeFailure& failure) {
  context.nccl_log.update();
  const std::vector<std::uint8_t> codes = local_codes(point, context.nccl_log, context.engine);
  std::string refused;
  outcome.settings = point.settings;
  for (std::size_t i = 0; i < outcome.settings.size(); ++i) {
    SettingOutcome& s = outcome.settings[i];
    s.status = status_of(s, codes[i]);
    const auto& invalid = facts_for(s, context.nccl_log).invalid;
    if (const auto said = invalid.find(s.name); s.kind != SettingKind::config_field && said != invalid.end()) {
      refused += (refused.empty() ? "" : "; ") + s.name + "=" + s.value + " (" + said->second + ")";
    }
  }
  if (refused.empty()) return;
  outcome.status = PointStatus::mismatch;
  outcome.error = "NCCL refused " + refused + ", then " + failure.call() + " failed: " + failure.what() +
                  "; not measured";
  throw PointRejected(outcome, failure);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

PointOutcome run_point(const PointSpec& point, const MeasurementPlan& plan, PointContext& context) {
  PointOutcome outcome;
  PointPhases& phase = outcome.phase_s;
  const auto disconnect = [&] {
    const auto start = std::chrono::steady_clock::now();
    context.engine.disconnect();
    phase.disconnect = seconds_since(start);
  };
  outcome.label = point.label;
  // The worker's environment plus this point's variables, whatever earlier points set;
  // the worker's comes back when the point ends. Only re-read variables (and, under
  // --isolation reinit, the rest) change here: the process-cached ones came with the
  // worker's environment.
  const EnvironmentMap point_env(point.env.begin(), point.env.end());
  EnvironmentMap init_env = context.base_environment;
  apply_edit(edit_to_enter(context.base_environment, point_env), init_env);
  // An engine that reads its variables from what it is given needs no change to the
  // process (whose environment other threads may read).
  std::optional<ScopedPointEnvironment> environment;
  if (context.engine.reads_process_environment()) environment.emplace(context.base_environment, point_env);
  context.engine.init_environment(init_env);
  context.nccl_log.mark_point();
  outcome.environment = environment ? recorded_environment(environ) : recorded_environment(init_env);

  const auto start = std::chrono::steady_clock::now();
  try {
    context.engine.connect(point.config);
  } catch (const RuntimeFailure& failure) {
    throw_if_rejected(point, context, outcome, failure);
    throw;
  }
  phase.connect = seconds_since(start);
  adopt_variables_set_during_init(context, outcome);
  const RankTimes t = context.ranks.reduce_times(phase.connect);
  outcome.init_time_us = {t.min * 1e6, t.avg * 1e6, t.max * 1e6};

  auto phase_start = std::chrono::steady_clock::now();
  const bool applied = verify(point, context, outcome);
  phase.verify = seconds_since(phase_start);
  if (!applied) {
    // Never measure a point whose setting did not reach NCCL.
    outcome.status = PointStatus::mismatch;
    outcome.error = "a setting did not reach NCCL (see settings); not measured";
    disconnect();
    return outcome;
  }
  LoopOptions options = context.options;
  options.point = point.label;
  if (context.fault.applies(context.ranks.rank(), point.label) && inject_fault(context.fault)) {
    outcome.status = PointStatus::ok;  // skip: the other ranks wait in the collectives this one never joins
    disconnect();
    return outcome;
  }
  phase_start = std::chrono::steady_clock::now();
  bool measured = false;
  try {
    measured = measure_plan(plan, options, context.engine, context.ranks, context.rows);
  } catch (const RuntimeFailure& failure) {
    throw_if_rejected(point, context, outcome, failure);  // e.g. no algorithm NCCL_ALGO allows serves a call
    throw;
  }
  phase.measure = seconds_since(phase_start);
  if (!measured) {
    outcome.status = PointStatus::interrupted;  // the ranks agreed to stop (a signal): the sweep ends here
    outcome.error = "stopped by a signal before all sizes were measured";
    disconnect();
    return outcome;
  }
  // Variables NCCL reads lazily (at the first collective) show up only now.
  phase_start = std::chrono::steady_clock::now();
  outcome.status = verify(point, context, outcome) ? PointStatus::ok : PointStatus::mismatch;
  phase.verify += seconds_since(phase_start);
  disconnect();
  if (context.log_resources) {
    context.engine.settle();  // what the point's communicator held is given back by now
    std::fprintf(stderr, "%s\n", resource_line(context.ranks.rank(), point.label, current_resource_use()).c_str());
  }
  return outcome;
}


namespace {

// Rank 0's worker forwards each row to its MPI rank, which owns the sinks.
class RowForwarder final : public ResultSink {
 public:
  explicit RowForwarder(MessageChannel& channel) : channel_(channel) {}
  void row(std::span<const MeasurementRecord> placements) override {
    channel_.send(message(RowMessage{{placements.begin(), placements.end()}}));
  }

 private:
  MessageChannel& channel_;
};

// The MPI rank holds the signal handlers; it answers whether this rank wants to stop.
bool parent_wants_stop(MessageChannel& channel) {
  channel.send(message(StopPoll{}));
  const auto reply = channel.receive();
  if (!reply) throw RuntimeFailure("relay", "the MPI rank closed the worker channel");
  return expect<PollAnswer>(*reply).stop;
}

// The calls a request names, out of the start's plan.
MeasurementPlan selected_calls(const MeasurementPlan& plan, const std::vector<std::size_t>& calls) {
  if (calls.empty()) return plan;
  MeasurementPlan selected;
  selected.comms = plan.comms;
  for (const std::size_t c : calls) {
    if (c >= plan.calls.size()) {
      throw RuntimeFailure("worker message", "a request names call " + std::to_string(c) + " of " +
                                                 std::to_string(plan.calls.size()));
    }
    selected.calls.push_back(plan.calls[c]);
  }
  return selected;
}

// Requests until the rank says stop; returns the exit status.
int serve_requests(MessageChannel& channel, const WorkerStart& start, PointContext& context) {
  for (;;) {
    const auto next = channel.receive();
    if (!next || message_type(*next) == StopWorker::kType) return kExitOk;
    const MeasureRequest request = expect<MeasureRequest>(*next);
    const MeasurementPlan plan = selected_calls(start.plan, request.calls);
    context.options.first_repeat = request.first_repeat;
    context.options.repeats = request.repeats;
    context.options.order = request.order;
    context.engine.slow_down(request.slow_factor);
    MeasureEnd end;
    try {
      end.outcome = run_point(request.point, plan, context);
    } catch (const PointRejected& rejected) {
      // NCCL failed after refusing one of the point's values: the point is settled as a
      // mismatch, and the next points run in a fresh worker.
      channel.send(message(WorkerError{kExitRuntime, rejected.call() + " failed: " + rejected.what(), rejected.outcome()}));
      return kExitRuntime;
    }
    context.engine.slow_down(1);
    end.free_memory_bytes = free_memory_bytes(context.engine.device());
    channel.send(message(end));
  }
}

}  // namespace

int serve_worker(MessageChannel& channel, const EnvironmentMap& environment, const WorkerEngineFactory& make_engine) {
  const auto first = channel.receive();
  if (!first) return kExitRuntime;
  const WorkerStart start = expect<WorkerStart>(*first);
  RelayCoordinator ranks(channel, start.rank, start.ranks, start.local_rank);
  try {
    // A launch never plans nothing (plan_measurements refuses it): an empty plan is a broken message.
    if (start.plan.calls.empty()) throw RuntimeFailure("worker start", "the start message holds no planned call");
    std::unique_ptr<Engine> engine = make_engine(start, ranks, channel, environment);
    channel.send(message(WorkerReady{engine->device(), free_memory_bytes(engine->device())}));
    const auto reply = channel.receive();
    if (!reply || !expect<StartReply>(*reply).go) return kExitOk;  // the MPI ranks decided to stop
    RowForwarder forwarder(channel);
    LoopOptions options = loop_options(start.spec, start.corrupt_rank, "");
    options.done.insert(start.done.begin(), start.done.end());
    options.stop_requested = [&channel] { return parent_wants_stop(channel); };
    options.trace_timing = environment.count("NCCLSWEEP_TRACE_TIMING") != 0;
    PointContext context{*engine,
                         ranks,
                         options,
                         NcclLogFollower(start.nccl_log_path),
                         start.rank == 0 ? &forwarder : nullptr,
                         start.fault,
                         environment.count("NCCLSWEEP_RESOURCE_LOG") != 0,
                         environment,
                         recorded_environment(environment)};
    return serve_requests(channel, start, context);
  } catch (const PeerFailure&) {
    return kExitRuntime;  // another rank's worker failed; its MPI rank reports why
  } catch (...) {
    // Any failure (bad input, CUDA/NCCL, a file system or JSON error, out of memory)
    // reaches the MPI rank as this worker's error, never std::terminate.
    const FailureReport failure = describe_failure(std::current_exception());
    channel.send(message(WorkerError{failure.status, failure.message, std::nullopt}));
    return failure.status;
  }
}

}  // namespace ncclsweep
