#pragma once
// `run`'s measurement flags as the command line gave them: each one given replaces the
// sweep file's key (or the default), each one not given leaves it as it is. Empty means
// not given, so no list of given flags is kept beside the values.
#include <cstdint>
#include <optional>
#include <string>

#include "core/repeat_order.hpp"
#include "core/stopping_rule.hpp"
#include "spec/run_spec.hpp"

namespace ncclsweep {

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

// The flags given, over `spec`. Throws UsageError for a bad list entry or
// --min-iters above --max-iters.
void apply_overrides(const RunOverrides& flags, RunSpec& spec);

// The run without a sweep file: the defaults ("run", set_default_measurements), the flags
// given over them, and the engine the flags name ("" when none).
RunSpec spec_from_overrides(const RunOverrides& flags);

}  // namespace ncclsweep
