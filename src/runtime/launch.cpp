#include "runtime/launch.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/run_options.hpp"
#include "runtime/deadline.hpp"
#include "runtime/in_process_run.hpp"
#include "runtime/launch_document.hpp"
#include "runtime/launch_state.hpp"
#include "runtime/engine_registry.hpp"
#include "transport/mpi_session.hpp"
#include "runtime/stop_signals.hpp"
#include "runtime/result_outputs.hpp"
#include "processes/worker_data_plane.hpp"
#include "processes/worker_process.hpp"
#include "runtime/search_rounds.hpp"
#include "runtime/worker_schedule.hpp"

namespace ncclsweep {
namespace {

// Rank 0: the final document to the sinks, then the run's last words; the exit status
// with what they found.
int close_run(LaunchState& state, int status, int signal) {
  state.close_document(signal);
  const ClosingWords words = closing_words(state.run, status, signal, state.results_dir);
  for (const auto& [level, message] : words.messages) state.log(level, message);
  return words.status;
}

int finish(LaunchState& state, int status) {
  // stopped is agreed by every rank; the signal is the largest any rank received.
  const int signal = state.stopped ? std::max(state.ranks.max_across_ranks(state.received_signal()), 1) : 0;
  if (signal != 0) status = exit_status_for_signal(signal);
  if (state.leader && state.started()) status = close_run(state, status, signal);
  // A launcher ends every rank once one exits non-zero (130/143 after a signal): the
  // others wait here until rank 0 has written the results.
  state.ranks.barrier();
  return status;
}

}  // namespace

LaunchState::LaunchState(RankGroup& ranks, const LaunchRequest& request, const LaunchServices& services)
    : ranks(ranks),
      request(request),
      services(services),
      leader(ranks.rank() == 0),
      start(std::chrono::system_clock::now()) {}

void LaunchState::checkpoint_interrupted(int signal) {
  const std::lock_guard<std::mutex> lock(document_mutex);
  if (!document_open) return;  // not started (nothing to mark) or already closed
  RunDocument interrupted = run;
  close_run_document(interrupted, signal);
  sinks.checkpoint(interrupted, signal);
}

void LaunchState::close_document(int signal) {
  const std::lock_guard<std::mutex> lock(document_mutex);
  close_run_document(run, signal);
  document_open = false;
  sinks.finish(run);
}

std::vector<WorkerGroup> default_groups() {
  WorkerGroup group;
  PointSpec point;
  point.label = "default";
  group.points.push_back(point);
  return {group};
}

bool sets_variables(const std::vector<WorkerGroup>& groups) {
  return std::any_of(groups.begin(), groups.end(), [](const WorkerGroup& g) {
    return !g.process_env.empty() ||
           std::any_of(g.points.begin(), g.points.end(), [](const PointSpec& p) { return !p.settings.empty(); });
  });
}

std::vector<WorkerGroup> worker_groups(const SweepPlan& plan) {
  std::vector<WorkerGroup> groups;
  for (const IsolationGroup& g : plan.isolation_groups) {
    WorkerGroup group;
    group.index = g.index;
    group.process_env = g.process_env;
    for (const int index : g.points) {
      const SweepPoint& p = plan.points[static_cast<std::size_t>(index)];
      PointSpec point;
      point.label = p.label;
      for (const Setting& s : p.settings) {
        const bool config = s.kind == SettingKind::config_field;
        point.settings.push_back({s.name, s.value, s.kind, SettingStatus::unverified});
        if (config) {
          point.config.push_back(config_setting(s.name, s.value));
        } else {
          point.env.emplace_back(s.name, s.value);
        }
      }
      group.points.push_back(point);
    }
    groups.push_back(group);
  }
  return groups;
}

namespace {

// The nccl engine measures in workers, so every group's settings reach a NCCL never
// initialised; so does the mpi engine where a point sets a variable (the testing aid's).
bool measures_in_process(const LaunchRequest& request) {
  return request.spec.engine == EngineKind::mpi && !sets_variables(request.groups);
}

}  // namespace

LaunchServices mpi_launch_services(MpiSession& session, const StopSignals* signals) {
  return {
      .make_engine = [&session](EngineKind engine) { return make_in_process_engine(engine, session); },
      .received_signal = [signals] { return signals ? signals->received() : 0; },
      .watch_signals = [signals](std::function<void(int)> on_signal) -> std::shared_ptr<void> {
        if (!signals) return nullptr;
        return std::make_shared<SignalWatcher>(std::move(on_signal));
      },
      .workers =
          {
              .start_worker =
                  [](const std::map<std::string, std::string>& environment, int region_fd) {
                    return std::unique_ptr<WorkerLink>(
                        std::make_unique<WorkerProcess>(current_executable(), environment, region_fd));
                  },
              .make_data_plane = [&session] { return make_mpi_data_plane(session.data_plane_comm()); },
          },
      .display = &std::cout,
  };
}

int run_launch(MpiSession& session, const LaunchRequest& request) {
  const StopSignals signals;
  const StallWatch::Limit stall_limit(session.stall_watch(),
                                      stall_limit_s(request.spec, request.plan, measures_in_process(request)));
  return run_launch(session, request, mpi_launch_services(session, &signals));
}

int run_launch(RankGroup& ranks, const LaunchRequest& request, const LaunchServices& services) {
  // A failure on one rank leaves the others in a collective: it goes up to main, whose
  // one handler (runtime/uncaught_failure.hpp) reports it and aborts every rank.
  LaunchState state(ranks, request, services);
  if (const int status = open_results(state); status != kExitOk) return status;
  // Declared after `state`, so its thread is joined before `state` goes.
  const std::shared_ptr<void> watcher =
      state.leader && services.watch_signals
          ? services.watch_signals([&state](int signal) { state.checkpoint_interrupted(signal); })
          : nullptr;
  if (measures_in_process(request)) return finish(state, run_in_process(state));
  return finish(state, request.search ? run_search_in_workers(state) : run_in_workers(state));
}

}  // namespace ncclsweep
