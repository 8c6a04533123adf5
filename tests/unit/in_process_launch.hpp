#pragma once
// Whole launches (runtime/launch.hpp's run_launch) on ranks that are threads of the test
// process (thread_ranks.hpp), each with a PacedEngine (paced_engine.hpp): what the
// in-process launch tests share.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "runtime/launch.hpp"

namespace ncclsweep::testing {

// all_reduce of float32 at `sizes` (default 4, 8, 16, 32 and 64 KiB: 10 measurements, two
// placements each), 1 warm-up and 3 timed calls, checked, on the mpi engine.
RunSpec paced_spec(std::vector<Bytes> sizes = {4 * kKiB, 8 * kKiB, 16 * kKiB, 32 * kKiB, 64 * kKiB});

// `spec` on `ranks` ranks, planned as run plans it, written to `dir`, with no progress display.
LaunchRequest paced_request(const RunSpec& spec, int ranks, const std::filesystem::path& dir);

// The same, resuming the run in `dir` (--resume DIR) instead of starting one there.
LaunchRequest paced_resume(const RunSpec& spec, int ranks, const std::filesystem::path& dir);

struct InProcessLaunch {
  std::vector<int> statuses;  // each rank's exit status
  std::string errors;         // what the ranks wrote to std::cerr
  int timed_batches = 0;      // run_timed calls, over every rank
  int worker_starts = 0;      // workers started, over every rank (thread_workers.hpp)
  double paced_seconds = 0;   // what rank 0's engines would have spent measuring (paced_engine.hpp)
};

// How the paced engines time: each sample off by up to `noise`, drawn from `seed`.
struct PacedTiming {
  double noise = 0;
  std::uint64_t seed = 0;
};

// One launch on `ranks` threads; its workers (a sweep that sets variables) are threads
// too. stop_rank (>= 0) "receives" SIGTERM once its engine has timed `stop_after`
// batches: only that rank, as a launcher may deliver a signal.
InProcessLaunch launch_in_process(const LaunchRequest& request, int ranks, int stop_rank = -1, int stop_after = 0,
                                  PacedTiming timing = {});

// An empty scratch directory's path (under the system's temporary directory).
std::filesystem::path fresh_dir(const std::string& name);

// records.jsonl's lines, each parsed (every one must be complete JSON).
std::vector<nlohmann::json> records_of(const std::filesystem::path& dir);

// "collective size placement" of each record.
std::multiset<std::string> keys_of(const std::vector<nlohmann::json>& records);

bool all_equal(const std::vector<int>& statuses, int status);

}  // namespace ncclsweep::testing
