#pragma once
// The MPI rank's workers (docs/architecture.md, "One launch"): start an isolation
// group's workers, one per rank (start), hand them measurement requests (measure), keep
// them alive between requests and between a search's rounds, and stop them. The grid's
// schedule (worker_schedule.hpp) and a search's rounds (search_rounds.hpp) both measure
// through it. Every call is collective: each rank calls it with the same arguments, and
// every decision that could differ between ranks (a worker failed, memory is short) is
// agreed in a relay step first, so the ranks' pools always hold the same groups.
//
// A warm pool: a group's workers stay up after their requests while memory allows. Each
// worker reports what its device has free (the GPU's memory; the host's for the mpi
// engine); what one group's workers cost is the drop in the lowest report over ranks
// from before they started to after their first point. A new group's start stops the
// least recently used warm groups while the lowest free memory is under kMemoryHeadroom
// times that cost, while kMaxWarmGroups are up, or always on a GPU that takes one process
// at a time. Idle workers hold their context but run nothing, so they do not disturb
// the group that measures. The next group's workers are never started while one measures
// (docs/search.md says why).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/result_sink.hpp"
#include "transport/rank_group.hpp"
#include "processes/worker_data_plane.hpp"
#include "processes/worker_link.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {

inline constexpr std::size_t kMaxWarmGroups = 32;
inline constexpr double kMemoryHeadroom = 2;

// How a rank starts workers: processes in a real launch; threads in the unit tests.
struct WorkerStarter {
  // A worker with this whole environment; `region_fd` (>= 0) its shared region.
  std::function<std::unique_ptr<WorkerLink>(const std::map<std::string, std::string>& environment, int region_fd)>
      start_worker;
  // The rank's side of an mpi-engine worker's collectives; empty where none is served.
  std::function<std::unique_ptr<WorkerDataPlane>()> make_data_plane;
};

struct WorkerPoolConfig {
  WorkerStart start;  // what every worker is told; its rank, group and log path are filled in per start
  std::map<std::string, std::string> base_env;  // the rank's environment
  std::filesystem::path log_dir;                // NCCL's logs, one per group and rank
  double deadline_s = 300;                      // the longest a worker may go without a word
  bool log_tuning = false;                      // rank 0's workers log NCCL's TUNING lines
  bool data_plane = false;                      // the mpi engine: its collectives go through the rank
};

struct PoolCallbacks {
  // Collective, after every rank's workers of a fresh start are up: whether they go on.
  std::function<bool(const DeviceDescription&)> on_device;
  // This rank's wish to stop (a signal); the workers agree on it. Empty: never.
  std::function<bool()> stop_requested;
  // A note for the log (a stopped worker that ended badly).
  std::function<void(const std::string&)> on_note;
};

// A failure as every rank agreed on it, and this rank's part in it.
struct WorkerFailure {
  bool failed = false;       // some rank's worker failed: the group stopped on every rank
  int failed_rank = -1;      // the lowest rank that failed
  std::string local_error;   // what this rank's worker said or how it ended; empty when fine
  int local_status = 0;      // the exit status this rank's worker asked for (2 usage, 3 runtime)
  bool timed_out = false;    // this rank's worker said nothing within the deadline and was killed
  // NCCL refused one of the point's values and failed: the point's outcome (a mismatch),
  // nothing left half done.
  std::optional<PointOutcome> outcome;
};

struct StartResult {
  bool up = false;        // the group's workers run on every rank
  bool refused = false;   // on_device said no: the run may not start
  bool fresh = false;     // started by this call (false: they were warm)
  double startup_s = 0;   // spawn until every rank's worker was up
  WorkerFailure failure;
};

struct MeasureResult {
  bool ok = false;
  PointOutcome outcome;  // statuses agreed over ranks; the rest this rank's view
  WorkerFailure failure;
};

// The MPI rank's answer to its worker's "step": the combination of every rank's step and,
// on rank 0 after a gathering step, every rank's value.
nlohmann::json relay_step_reply(const CombinedStep& combined);

class WorkerPool {
 public:
  WorkerPool(RankGroup& ranks, WorkerPoolConfig config, WorkerStarter starter, PoolCallbacks callbacks);
  ~WorkerPool();  // stops every worker and waits for them
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The group's workers on every rank: warm ones as they are, else fresh ones.
  StartResult start(const WorkerGroup& group);
  // One point measured by the group's workers (started first). `rows`: rank 0's sink for
  // each size's records. A failure stops the group's workers on every rank.
  MeasureResult measure(const WorkerGroup& group, const MeasureRequest& request, ResultSink* rows);
  void stop(int group);
  void stop_all();

  bool warm(int group) const;
  int starts() const { return starts_; }  // group starts so far (the same on every rank)
  std::size_t warm_groups() const { return slots_.size(); }

 private:
  struct Slot;
  Slot* find(int group);
  // Stops least recently used groups until a fresh one may start.
  void make_room();
  void stop_slot(std::size_t index);
  // The workers asked to stop, waited for before anything else is timed.
  void reap();
  bool converse(Slot& slot, WorkerFailure& failure, bool& aborted,
                const std::function<bool(const nlohmann::json&)>& handle);
  void fail_step(WorkerFailure& failure, bool& aborted);
  RelayStep agree(std::int64_t free_memory_bytes, bool exclusive, WorkerFailure& failure, bool& aborted);

  RankGroup& ranks_;
  WorkerPoolConfig config_;
  WorkerStarter starter_;
  PoolCallbacks callbacks_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<WorkerLink>> exiting_;
  std::uint64_t clock_ = 0;
  int starts_ = 0;
  bool exclusive_gpu_ = false;    // agreed: a GPU that takes one process at a time
  std::int64_t min_free_ = -1;    // agreed: the lowest free memory over ranks, last reported
  std::int64_t worker_cost_ = 0;  // agreed: the most one group's workers took
};

}  // namespace ncclsweep
