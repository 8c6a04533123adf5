#pragma once
// A validated description of what to measure, before any rank or GPU is involved, and the
// measurement flags of `run` laid over it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/collective.hpp"
#include "core/compute_load.hpp"
#include "core/dtype.hpp"
#include "core/repeat_order.hpp"
#include "core/run_options.hpp"
#include "core/stopping_rule.hpp"
#include "core/units.hpp"
#include "spec/comm_split.hpp"

namespace ncclsweep {

// One call a workload makes, measured as it is instead of a grid of sizes.
struct SizedCall {
  const CollectiveKind* kind = nullptr;
  const DataType* dtype = nullptr;
  ReduceOp op = ReduceOp::sum;
  Bytes bytes = 0;   // total, nccl-tests convention
  CommSplit split;   // the communicator it runs on
};

struct RunSpec {
  std::string name = "run";
  std::vector<const CollectiveKind*> collectives;
  std::vector<Bytes> sizes;  // requested totals, nccl-tests convention
  std::vector<const DataType*> dtypes;
  std::vector<ReduceOp> ops;
  // Each measurement once per buffer mode and launch mode (outermost: one table each).
  std::vector<BufferMode> buffer_modes{BufferMode::cuda_malloc};
  std::vector<LaunchMode> launch_modes{LaunchMode::stream};
  // ... and once per buffer footprint and cache state (largest and warm: nccl-tests' model).
  std::vector<BufferFootprint> footprints{BufferFootprint{}};
  std::vector<CacheState> cache_states{CacheState::warm};
  int root = 0;
  int warmup = 5;
  int iters = 0;            // > 0: a fixed count of timed iterations; 0: stop by `stopping`
  StoppingRule stopping;    // the noise-based stop (its fixed_iters is unused here)
  int repeats = 1;          // each measurement this many times, recorded separately
  RepeatOrder order = RepeatOrder::sequential;  // of repeats over points
  std::uint64_t seed = 0;   // for shuffled
  bool check = true;
  std::optional<EngineKind> engine;  // empty: the sweep's, else the build's first (runtime default_engine)
  CommSplit split;               // where the grid's collectives run (world by default)
  std::vector<SizedCall> calls;  // non-empty: measure exactly these (sizes from a workload), not the grid
  // Deadline in seconds for each communicator init and each measured size; 0: the
  // default, which scales with the largest size (runtime/deadline.hpp).
  int timeout_s = 0;
  // compute: / --with-compute: each measurement is also taken beside this compute
  // (docs/overlap.md); empty: idle only, as before.
  std::optional<ComputeLoad> compute;
};

// The engine's name for files and text; "" when the spec names none yet.
inline std::string engine_name(const RunSpec& spec) { return spec.engine ? std::string(name_of(*spec.engine)) : std::string(); }

// Comma-separated lists from the command line; each throws UsageError naming the bad entry.
std::vector<const CollectiveKind*> parse_collective_list(const std::string& text);
std::vector<const DataType*> parse_dtype_list(const std::string& text);
std::vector<ReduceOp> parse_op_list(const std::string& text);

// `run`'s measurement flags as the command line gave them: each one given replaces the
// sweep file's key (or the default), each one not given leaves it as it is. Empty means
// not given, so no list of given flags is kept beside the values.

struct RunOverrides {
  // Lists as typed on the command line; parsed (and refused, naming the entry) when applied.
  std::optional<std::string> collectives, sizes, dtypes, ops, buffers, launch, footprint, cache;
  std::optional<int> root, warmup, iters;
  std::optional<bool> check;
  std::optional<std::string> name;
  std::optional<int> repeats;
  std::optional<RepeatOrder> order;
  std::optional<std::uint64_t> seed;
  std::optional<int> timeout_s;
  std::optional<std::string> with_compute;  // gemm:MxNxK:DTYPE (docs/overlap.md)
  std::optional<EngineKind> engine;  // empty: the sweep file's, else the build's first engine
  // The noise-based stop: the sweep file has no key for it, so the flags (or their
  // defaults) always decide it.
  StoppingRule stopping;
};

// What a run measures when neither a flag nor the sweep file names it, as typed on the
// command line (the flags' help shows these).
inline constexpr const char* kDefaultCollectives = "all_gather,reduce_scatter,all_reduce";
inline constexpr const char* kDefaultSizes = "1M:1G:x4";
inline constexpr const char* kDefaultDtypes = "float32";
inline constexpr const char* kDefaultOps = "sum";
inline constexpr const char* kDefaultRunName = "run";  // a sweep file's runs are "sweep" unless it names them

// The collectives, sizes, dtypes and ops above.
void set_default_measurements(RunSpec& spec);

// The flags given, over `spec`. Throws UsageError for a bad list entry,
// --min-iters above --max-iters or --min-time above --max-time.
void apply_overrides(const RunOverrides& flags, RunSpec& spec);

// The run without a sweep file: the defaults ("run", set_default_measurements), the flags
// given over them, and the engine the flags name ("" when none).
RunSpec spec_from_overrides(const RunOverrides& flags);

}  // namespace ncclsweep
