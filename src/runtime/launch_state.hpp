#pragma once
// One launch's state on this rank, which each stage of run_launch reads and adds to:
// the results directory, the sinks (every format on rank 0; the log alone elsewhere),
// the run document (rank 0), what --resume skips, and whether the ranks agreed to stop.
#include <chrono>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "results/result_sink.hpp"
#include "runtime/launch.hpp"
#include "runtime/resume_state.hpp"
#include "runtime/stop_signals.hpp"

namespace ncclsweep {

struct LaunchState {
  LaunchState(MpiSession& session, const LaunchRequest& request);

  // Text for the person watching, through the sinks (no stage prints by itself).
  void log(LogLevel level, std::string_view message) { sinks.log(level, message); }
  // An error every rank agreed on: rank 0 says it, once.
  void refuse(std::string_view message) {
    if (leader) log(LogLevel::error, message);
  }
  // Rank 0: one size of one case measured; the sinks see it and the document keeps it.
  void add_row(std::span<const MeasurementRecord> row) {
    sinks.row(row);
    run.records.insert(run.records.end(), row.begin(), row.end());
  }
  // This rank received SIGINT or SIGTERM (the ranks agree on it collectively).
  bool signalled() const { return signals.received() != 0; }
  bool started() const { return !run.start_time.empty(); }  // rank 0: begin_run went through

  MpiSession& session;
  const LaunchRequest& request;
  const bool leader;  // rank 0: holds the sinks that print and write, and the document
  const std::chrono::system_clock::time_point start;
  std::string results_dir;     // every rank (NCCL logs go there)
  SinkFanout sinks;            // rank 0: every format; other ranks: the log only
  RunDocument run;             // rank 0
  EarlierRun earlier;          // rank 0, --resume
  std::set<std::string> done;  // --resume: measurement keys recorded earlier, on every rank
  StopSignals signals;
  bool stopped = false;  // the ranks agreed to stop early (a signal)
};

}  // namespace ncclsweep
