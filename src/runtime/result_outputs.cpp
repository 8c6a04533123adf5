#include "runtime/result_outputs.hpp"

#include <filesystem>
#include <iostream>

#include "core/errors.hpp"
#include "core/utc_time.hpp"
#include "report/log_lines.hpp"
#include "report/summary_file.hpp"
#include "report/sweep_summary.hpp"
#include "report/terminal_table.hpp"
#include "results/results_directory.hpp"
#include "runtime/launch_state.hpp"
#include "transport/rank_group.hpp"
#include "runtime/progress.hpp"

namespace ncclsweep {
namespace {

std::string chosen_results_dir(const LaunchState& state) {
  const LaunchRequest& request = state.request;
  if (!request.resume_dir.empty()) return request.resume_dir;
  if (!request.output_dir.empty()) return request.output_dir;
  return default_results_dir(request.results_root, request.spec.name, compact_utc(state.start)).string();
}

// Rank 0: the formats, in the order they see each event. Returns the keys --resume skips.
std::string open_leader_sinks(LaunchState& state) {
  const LaunchRequest& request = state.request;
  std::string done_keys;
  state.results_dir = chosen_results_dir(state);
  std::ostream& display = *state.services.display;
  state.sinks.add(make_progress_display(make_terminal_table(display),
                                        progress_plan(request.plan, request.spec, request.groups),
                                        progress_mode(request.progress), display));
  std::string command;
  for (const std::string& word : request.command_line) command += (command.empty() ? "" : " ") + word;
  std::string lock_note;
  if (request.resume_dir.empty()) {
    state.sinks.add(make_results_directory(state.results_dir, command, &lock_note));
  } else {
    // The lock before the earlier records are read: a run still writing them refuses this one.
    if (!std::filesystem::is_directory(state.results_dir)) {
      throw UsageError("cannot resume " + state.results_dir + ": " +
                           (std::filesystem::exists(state.results_dir) ? "it is not a directory" : "it does not exist"),
                       "give the results directory of an earlier ncclsweep run");
    }
    refuse_planted_results_links(state.results_dir);
    std::unique_ptr<ResultsLock> lock = ResultsLock::take(state.results_dir, command);
    lock_note = lock->note();
    state.earlier = read_earlier_run(state.results_dir);
    const RecordedMeasurements& recorded = state.earlier.recorded;
    if (!recorded.dropped_tail.empty()) state.log(LogLevel::note, recorded.dropped_tail);
    done_keys = done_keys_text(recorded);
    state.sinks.add(resume_results_directory(state.results_dir, recorded.complete_bytes, std::move(lock)));
  }
  if (!lock_note.empty()) state.log(LogLevel::note, lock_note);
  state.sinks.add(make_summary_file(state.results_dir));
  state.sinks.add(make_sweep_summary(display, request.baseline_point));
  return done_keys;
}

}  // namespace

int open_results(LaunchState& state) {
  RankGroup& session = state.ranks;
  state.sinks.add(make_log_lines(std::cerr));  // every rank: its notes and errors
  std::string error;
  std::string done_keys;
  if (state.leader) {
    try {
      done_keys = open_leader_sinks(state);
    } catch (const UsageError& e) {
      error = e.message();
    }
  }
  if (session.max_across_ranks(error.empty() ? kExitOk : kExitUsage) != kExitOk) {
    state.refuse(error);
    return kExitUsage;
  }
  state.results_dir = session.broadcast_string(state.results_dir);  // NCCL logs go there
  state.done = share_done_keys(session, done_keys);
  return kExitOk;
}

}  // namespace ncclsweep
