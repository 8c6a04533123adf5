#pragma once
// The run document (run.json) as a launch fills it on rank 0: started once every rank
// is known, closed when the run ends, and the last words the run says about it.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "core/finding.hpp"
#include "engine/engine.hpp"
#include "results/record.hpp"
#include "results/result_sink.hpp"
#include "runtime/launch.hpp"
#include "runtime/resume_state.hpp"

namespace ncclsweep {

// What the run knows once every rank has described itself.
struct RunStart {
  std::chrono::system_clock::time_point start;  // this invocation's start
  DeviceDescription device;                     // rank 0's
  std::vector<RankEntry> ranks;
  std::string mpi_library_version;
  std::string shared_gpu_conflict;  // the first, when --allow-shared-gpu let the run go on
  std::string fingerprint;          // runtime/run_fingerprint.hpp
  std::vector<doctor::Finding> preflight;
};

// The document as the run begins ("incomplete", no records). With --resume it is the
// earlier run's document going on: its start time and records stay, and a note says so.
RunDocument start_run_document(const LaunchRequest& request, const RunStart& start, const EarlierRun& earlier);

// The document as the run ends: status, end time, the per-iteration ranking, stragglers.
void close_run_document(RunDocument& run, int signal);

// What the run says last, after the sinks have finished, and the exit status with it:
// where the results are, a stop by a signal, settings that did not reach NCCL, unexpected
// variables, wrong values. `status` is the run's so far; `signal` 0 when none stopped it.
struct ClosingWords {
  int status = 0;
  std::vector<std::pair<LogLevel, std::string>> messages;  // in order
};
ClosingWords closing_words(const RunDocument& run, int status, int signal, const std::string& results_dir);

}  // namespace ncclsweep
