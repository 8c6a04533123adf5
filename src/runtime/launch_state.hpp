#pragma once
// One launch's state on this rank, which each stage of run_launch reads and adds to:
// the results directory, the sinks (every format on rank 0; the log alone elsewhere),
// the run document (rank 0), what --resume skips, and whether the ranks agreed to stop.
#include <chrono>
#include <memory>
#include <mutex>
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
    const std::lock_guard<std::mutex> lock(document_mutex);
    sinks.row(row);
    run.records.insert(run.records.end(), row.begin(), row.end());
  }
  // Rank 0: points settled.
  void add_points(std::span<const PointOutcome> points) {
    const std::lock_guard<std::mutex> lock(document_mutex);
    run.points.insert(run.points.end(), points.begin(), points.end());
  }
  // Rank 0: the run starts; run.json is written with status incomplete.
  void open_document(RunDocument document) {
    const std::lock_guard<std::mutex> lock(document_mutex);
    run = std::move(document);
    sinks.begin(run);
    document_open = true;
  }
  // Rank 0, from the signal watcher's thread: the files say "interrupted" at once, with
  // what is recorded so far, in case the launcher kills this process before it ends.
  void checkpoint_interrupted(int signal);
  // Rank 0: the final document to the sinks (files and printers).
  void close_document(int signal);
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
  // Rank 0: `run` and the sinks' files, shared with the signal watcher's thread.
  std::mutex document_mutex;
  bool document_open = false;    // open_document went through, close_document not yet
};

}  // namespace ncclsweep
