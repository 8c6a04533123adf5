#pragma once
// What a run produces: one record per measurement, and the run's identity around them.
// These plain types are what every report reads; run.json is their JSON form
// (docs/results.md).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_clocks.hpp"
#include "core/run_options.hpp"
#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/collective.hpp"
#include "core/communicator_kind.hpp"
#include "core/dtype.hpp"
#include "core/compute_load.hpp"
#include "core/units.hpp"
#include "core/finding.hpp"
#include "core/locate_phase.hpp"
#include "core/soak_scope.hpp"
#include "core/name_table.hpp"
#include "core/setting_kind.hpp"
#include "core/stopping_rule.hpp"

namespace ncclsweep {

inline constexpr int kResultsSchemaVersion = 1;

struct TimeStatsUs {
  double min = 0, avg = 0, max = 0;  // per-call time in microseconds, across ranks
};

// One sub-communicator's view of a measurement: its ranks' times reduced within it.
struct SubCommunicatorTime {
  int colour = 0;  // the sub-communicator's colour in the split (docs/groups.md)
  TimeStatsUs time_us;
  double busbw_gbps = 0;
};

// Per-iteration times of the slowest rank (each iteration's time is the maximum over
// ranks), in microseconds.
struct IterationPercentilesUs {
  double p50 = 0, p90 = 0, p99 = 0, min = 0, max = 0;
};

// The GPU clocks around one measurement: the lowest over ranks before and after it, and
// every throttle reason (core/gpu_clocks.hpp) any rank's GPU showed at either reading.
struct MeasurementClocks {
  int sm_mhz_before = 0, sm_mhz_after = 0;
  int mem_mhz_before = 0, mem_mhz_after = 0;
  std::vector<ThrottleReason> throttle;  // any rank's, in enum order; empty: not throttled
};

// The collective under compute and the compute under the collective (docs/overlap.md),
// measured in rounds that interleave the alone figures with the overlapped ones. Times
// are the slowest rank's; busbw and TFLOP/s follow from them.
struct UnderCompute {
  ComputeLoad load;
  ComputeSite site = ComputeSite::gpu;  // cpu_analogue: the mpi engine's blocked multiply on the rank's cores
  int rounds = 0;
  int calls = 0;                 // collective calls per round, alone and under compute alike
  double comm_alone_us = 0;      // per call
  double comm_under_us = 0;
  double busbw_alone_gbps = 0, busbw_under_gbps = 0;
  double compute_alone_us = 0;   // per GEMM
  double compute_under_us = 0;   // per GEMM that ran wholly under the collective
  double tflops_alone = 0, tflops_under = 0;
  int compute_ops_under = 0;     // such GEMMs per round, on the rank with fewest
  double overlapped_wall_us = 0;  // per round: the GEMMs and calls run together
  double serial_sum_us = 0;       // per round: the same one after another, at their alone times
  double plain_loop_tflops = 0;   // GPU: cuBLAS in a plain loop in the same call; 0 when not measured
  std::optional<MeasurementClocks> clocks;  // around the rounds (the GEMM heats the GPU)

  // Under / alone: 1 is no slowdown.
  double comm_slowdown() const { return comm_alone_us > 0 ? comm_under_us / comm_alone_us : 0; }
  double compute_slowdown() const { return compute_alone_us > 0 ? compute_under_us / compute_alone_us : 0; }
  // What one call adds to an iteration whose compute is long enough to hide it: its time
  // under compute less the compute that ran meanwhile, valued at the alone speed. Hidden
  // communication then costs nothing and compute slowed by it costs what it lost.
  double exposed_us() const {
    return compute_under_us > 0 ? comm_under_us * (1 - compute_alone_us / compute_under_us) : comm_under_us;
  }
};

// Where in locate's schedule a measurement was taken (docs/locate.md): a step of one
// phase, the group it measured on that step's split, and the pass of the whole schedule.
struct LocatePlace {
  LocatePhase phase = LocatePhase::host;
  int round = 0;            // 0 in the host phase
  std::vector<int> hosts;   // the host (host phase) or the pair of hosts, as host indices
  int rail = -1;            // rails phase: the local rank index on both hosts
  std::vector<int> group;   // the group's world ranks
  int pass = 1;             // --passes: which run of the whole schedule
};

// Where in a soak a measurement was taken (docs/soak.md): the communicator of one of a
// window's figures. The window is the record's `repeat`; its rounds are the samples
// (`iteration_us`, `calls_per_sample` calls each).
struct SoakPlace {
  SoakScope scope = SoakScope::world;
  int host = -1;  // host: its index; pair: the lower host's; world: -1
  int peer = -1;  // pair: the other host's index
};

struct MeasurementRecord {
  // Into their tables (core/collective.hpp, core/dtype.hpp): named only in files and printers.
  const CollectiveKind* collective = nullptr;
  const DataType* dtype = nullptr;
  std::optional<ReduceOp> op;  // empty for collectives that do not reduce ("none" in files)
  int root = -1;           // -1 for collectives without a root
  Bytes size_bytes = 0;    // total buffer, nccl-tests convention, after rounding
  Bytes requested_bytes = 0;
  std::uint64_t count = 0;    // per rank, as passed to the call
  Placement placement = Placement::out_of_place;
  BufferMode buffers = BufferMode::cuda_malloc;  // omitted from JSON when the default
  LaunchMode launch = LaunchMode::stream;
  // How much memory the buffers span and what the cache held (core/buffer_footprint.hpp):
  // at 1-32 MiB these change busbw by up to a third. Empty and 0 in files from before them.
  std::optional<BufferFootprint> buffer_footprint;
  Bytes footprint_bytes = 0;       // each buffer's allocation (the larger buffer for exact)
  std::uint64_t footprint_offsets = 0;  // offsets the calls rotated through (1: always offset 0)
  std::optional<CacheState> cache;
  int ranks = 0;
  int warmup = 0;
  int iters = 0;
  TimeStatsUs time_us;     // max is the collective's time: the slowest rank bounds it
  TimeStatsUs host_time_us;  // the same iterations on the host clock, as nccl-tests times
  double algbw_gbps = 0;   // size / max time, 1e9 B/s
  double busbw_gbps = 0;   // algbw * the collective's busbw factor
  std::optional<std::uint64_t> wrong;  // wrong elements summed over ranks; empty when not checked
  std::string point = "default";       // label of the sweep point (RunDocument::points)
  int repeat = 0;                      // which repeat of this measurement (0-based)
  std::optional<IterationPercentilesUs> iteration_us;  // empty in files from before per-iteration timing
  int slowest_rank = -1;          // the rank slowest in most iterations (lowest rank on ties)
  int slowest_rank_iterations = 0;  // ... in how many of the iters
  double spread = 0;              // relative standard error of the mean iteration time
  std::optional<StopReason> stopped_by;  // empty in older files
  int calls_per_sample = 1;       // iteration_us describes samples of this many calls (per call)
  std::vector<double> rank_time_us;  // each rank's average per-call time, in rank order
  // The communicator: "world", or a split into sub-communicators that all ran at once.
  // `ranks` is then the ranks of one sub-communicator (busbw uses it); time_us is across
  // every rank, so its max is the slowest sub-communicator's.
  CommunicatorKind communicator = CommunicatorKind::world;
  int communicators = 1;               // how many sub-communicators ran at once
  std::vector<SubCommunicatorTime> per_communicator;  // empty for the world
  std::optional<MeasurementClocks> clocks;  // empty when the engine has no GPU clocks to read
  std::optional<UnderCompute> under_compute;  // --with-compute / compute: only
  std::optional<LocatePlace> locate;  // a locate measurement: its place in the schedule
  std::optional<SoakPlace> soak;      // a soak window's figure: its communicator

  // The collective's time per call, the slowest rank's, in seconds.
  double call_seconds() const { return time_us.max * 1e-6; }
};

// The names a record's collective, dtype and op have in files and printers.
inline std::string_view collective_name(const MeasurementRecord& r) { return r.collective ? r.collective->name : "?"; }
inline std::string_view dtype_name(const MeasurementRecord& r) { return r.dtype ? r.dtype->name : "?"; }
inline std::string_view op_name(const MeasurementRecord& r) { return r.op ? name_of(*r.op) : "none"; }
// What a file's "op" names: empty for "none" (a collective that does not reduce).
inline std::optional<ReduceOp> op_from_name(std::string_view name) {
  return name == "none" ? std::nullopt : std::optional<ReduceOp>(reduce_op(name));
}

// A call a training job makes per iteration (from its workload or imported files),
// kept in run.json so reports can weigh the measured times by it.
struct WorkloadCall {
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;
  const DataType* dtype = nullptr;
  CommunicatorKind communicator = CommunicatorKind::world;  // the communicator kind measured on
  int communicator_ranks = 0;  // ranks of the communicator it was measured on
  double calls = 0;    // per rank per iteration, or over the whole input (WorkloadWeights)
  std::string origin;
};

struct WorkloadWeights {
  std::string source;  // the workload file or imported files
  std::string basis;   // what the calls count (per iteration, or over the whole input), in words
  std::vector<WorkloadCall> calls;
  // false: the input could not be cut into iterations (a torch trace without
  // ProfilerStep#N, logs without --iterations), so every sum is over the whole input.
  bool per_iteration = true;

  // What a weighted time covers, for headings: "per training iteration" or "over the whole input".
  std::string span() const { return per_iteration ? "per training iteration" : "over the whole input"; }
  // Its unit after a time: "ms/iter" or "ms/input".
  std::string ms_unit() const { return per_iteration ? "ms/iter" : "ms/input"; }
  // The calls a rank makes in that span (the sum of the rows' counts, not the row count).
  double call_count() const {
    double n = 0;
    for (const auto& c : calls) n += c.calls;
    return n;
  }
};

// One point's collective time per training iteration: sum of calls x measured time.
struct PointIterationTime {
  std::string point;
  double ms = 0;
  int measured = 0;      // calls whose size was measured
  int interpolated = 0;  // between two measured sizes, log-linearly
  int missing = 0;       // no measurement to use: ms is then a lower bound
  // The overlapped form (docs/overlap.md): sum of calls x each call's exposed time under
  // compute; empty when the run measured no compute.
  std::optional<double> under_compute_ms;
};

// One setting of a sweep point and whether it reached NCCL on every rank.
struct SettingOutcome {
  std::string name;    // "NCCL_PROTO" or a config field "max_ctas"
  std::string value;
  SettingKind kind = SettingKind::env_reread;
  SettingStatus status = SettingStatus::unverified;  // the worst over ranks
};

// The setting of that name among a point's, or nullptr.
inline const SettingOutcome* find_setting(const std::vector<SettingOutcome>& settings, std::string_view name) {
  for (const auto& s : settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Where a point's wall time went, on rank 0 (seconds): what the time-to-result benchmark
// and `plan --ranks` estimates need to see beyond the timed collectives.
struct PointPhases {
  double worker_start = 0;  // spawn to every worker up, for the first point a worker run measures; else 0
  double connect = 0;       // communicator init (and split)
  double verify = 0;        // reading NCCL's log, both times
  double measure = 0;       // every size: check, warm-up, timed samples, reductions
  double disconnect = 0;    // communicator destroy
};

// How a sweep point ended. Files from before it was written read as ok.
enum class PointStatus {
  ok,
  mismatch,     // a setting did not reach NCCL: not measured
  failed,       // a rank or worker failed
  timeout,      // its worker outlived --point-timeout
  interrupted,  // a signal stopped the run before or during it
};
inline constexpr NameTable<PointStatus, 5> kPointStatusNames{"point status",
                                                             {{{PointStatus::ok, "ok"},
                                                               {PointStatus::mismatch, "mismatch"},
                                                               {PointStatus::failed, "failed"},
                                                               {PointStatus::timeout, "timeout"},
                                                               {PointStatus::interrupted, "interrupted"}}}};
constexpr std::string_view name_of(PointStatus status) { return kPointStatusNames.name(status); }

// How the run ended.
enum class RunStatus {
  complete,
  incomplete,   // running, or killed
  interrupted,  // stopped by a signal: --resume measures the rest
};
inline constexpr NameTable<RunStatus, 3> kRunStatusNames{
    "run status",
    {{{RunStatus::complete, "complete"}, {RunStatus::incomplete, "incomplete"}, {RunStatus::interrupted, "interrupted"}}}};
constexpr std::string_view name_of(RunStatus status) { return kRunStatusNames.name(status); }

// One sweep point: its settings, isolation group, verification and communicator set-up.
struct PointOutcome {
  std::string label;
  int isolation_group = 0;  // "group" in files from before the rename: read as 0
  PointStatus status = PointStatus::ok;
  std::string error;   // why it failed, with the rank
  std::vector<SettingOutcome> settings;
  TimeStatsUs init_time_us;  // communicator init across ranks
  int coll_channels = -1;    // as NCCL logged it on rank 0; -1 when not logged
  std::vector<std::string> transports;  // "P2P/CUMEM/read", ... as rank 0 logged them
  // "AllGather 1048576 B: RING/SIMPLE, 24 channels": NCCL's choice per size, rank 0's TUNING log
  std::vector<std::string> algorithms;
  PointPhases phase_s;
  // The NCCL_ variables (and the launcher's GPU and rank variables) rank 0's communicator
  // init saw, values as they were: the run's own environment plus this point's settings,
  // plus what NCCL itself set during the init (its config file). Non-UTF-8 bytes as \xNN.
  std::map<std::string, std::string> environment;
  // "NCCL_X=V" for each NCCL_ variable at the init that the point does not name and the
  // run did not have from its start: it changes what the point measures unannounced.
  // "another rank: ..." when only other ranks saw one. Empty when the point is clean.
  std::vector<std::string> unexpected_environment;
};

struct RankEntry {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  int gpu_index = -1;
  std::string gpu_name;
  std::string pci_bus_id;
  std::map<std::string, std::string> environment;  // NCCL_* and launcher variables as this rank saw them
};

struct Versions {
  std::string ncclsweep;
  std::string git_sha;
  std::string driver;
  std::string cuda_runtime;
  std::string nccl_header;
  std::string nccl_library;
  std::string mpi;
};

struct RunSettings {
  std::optional<EngineKind> engine;  // empty: a run.json that named none
  int warmup = 0;
  int iters = 0;
  bool check = true;
};

// A rank slower than the median rank in most measurements (results/stragglers.hpp).
struct Straggler {
  int rank = 0;
  std::string host;
  int gpu_index = -1;
  int slower_in = 0;     // measurements where it exceeded the median by more than the threshold
  int measurements = 0;  // measurements with per-rank times
  double median_excess = 0;  // its median relative excess over the median rank (0.05 = 5% slower)
};

struct RunDocument {
  int schema_version = kResultsSchemaVersion;
  std::string name;
  RunStatus status = RunStatus::incomplete;
  // Digest of the expanded plan and the rank layout (ranks and their hosts): --resume
  // refuses a directory whose fingerprint differs. Empty in runs before it existed.
  std::string fingerprint;
  std::vector<std::string> command_line;
  std::string start_time;  // UTC, ISO 8601
  std::string end_time;
  Versions versions;
  RunSettings settings;
  std::vector<std::string> hosts;  // distinct, in rank order of first appearance
  std::vector<RankEntry> ranks;
  std::vector<std::string> notes;  // e.g. sizes rounded down
  std::vector<PointOutcome> points;  // empty for the mpi engine without a sweep
  std::vector<doctor::Finding> preflight;  // the cheap doctor checks, run before measuring
  std::vector<MeasurementRecord> records;
  std::string baseline;                            // the sweep point the others are compared with
  std::optional<WorkloadWeights> workload;         // when the sizes came from a workload
  std::vector<PointIterationTime> iteration_times;  // per point, with a workload
  std::vector<Straggler> stragglers;
};

}  // namespace ncclsweep
