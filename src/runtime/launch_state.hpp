#pragma once
// One launch's state on this rank, which each stage of run_launch reads and adds to:
// the results directory, the sinks (every format on rank 0; the log alone elsewhere),
// the run document (rank 0), what --resume skips, and whether the ranks agreed to stop.
#include <chrono>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "results/result_sink.hpp"
#include "runtime/launch.hpp"
#include "runtime/resume_state.hpp"

namespace ncclsweep {

struct LaunchState {
  LaunchState(RankGroup& ranks, const LaunchRequest& request, const LaunchServices& services);

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
  // The SIGINT or SIGTERM this rank received, or 0 (the ranks agree on it collectively).
  int received_signal() const { return services.received_signal(); }
  bool signalled() const { return received_signal() != 0; }
  std::unique_ptr<Engine> make_engine() const { return services.make_engine(request.spec.engine.value()); }
  bool started() const { return !run.start_time.empty(); }  // rank 0: begin_run went through

  RankGroup& ranks;
  const LaunchRequest& request;
  const LaunchServices& services;
  const bool leader;  // rank 0: holds the sinks that print and write, and the document
  const std::chrono::system_clock::time_point start;
  std::string results_dir;     // every rank (NCCL logs go there)
  SinkFanout sinks;            // rank 0: every format; other ranks: the log only
  RunDocument run;             // rank 0
  EarlierRun earlier;          // rank 0, --resume
  std::set<MeasurementKey> done;  // --resume: measurements recorded earlier, on every rank
  bool stopped = false;  // the ranks agreed to stop early (a signal)
};

}  // namespace ncclsweep
