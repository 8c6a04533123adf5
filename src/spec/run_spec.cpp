#include "spec/run_spec.hpp"

#include <algorithm>
#include <sstream>

#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/compute_load.hpp"
#include "core/errors.hpp"
#include "core/list_text.hpp"
#include "core/printf_text.hpp"
#include "core/units.hpp"

namespace ncclsweep {

std::vector<const CollectiveKind*> parse_collective_list(const std::string& text) {
  std::vector<const CollectiveKind*> out;
  // A collective named twice ("all_reduce,all") is measured once, where it came first.
  const auto add = [&out](const CollectiveKind* c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  for (const auto& name : split_list(text, "collective")) {
    if (name == "all") {
      for (const auto& c : all_collectives()) add(&c);
    } else {
      add(&collective(name));
    }
  }
  return out;
}

std::vector<const DataType*> parse_dtype_list(const std::string& text) {
  std::vector<const DataType*> out;
  for (const auto& name : split_list(text, "dtype")) {
    const DataType* t = &data_type(name);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

std::vector<ReduceOp> parse_op_list(const std::string& text) {
  std::vector<ReduceOp> out;
  for (const auto& name : split_list(text, "op")) {
    const ReduceOp op = reduce_op(name);
    if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  }
  return out;
}


void set_default_measurements(RunSpec& spec) {
  spec.collectives = parse_collective_list(kDefaultCollectives);
  spec.sizes = parse_size_list(kDefaultSizes);
  spec.dtypes = parse_dtype_list(kDefaultDtypes);
  spec.ops = parse_op_list(kDefaultOps);
}

void apply_overrides(const RunOverrides& flags, RunSpec& spec) {
  if (flags.collectives) spec.collectives = parse_collective_list(*flags.collectives);
  if (flags.sizes) spec.sizes = parse_size_list(*flags.sizes);
  if (flags.dtypes) spec.dtypes = parse_dtype_list(*flags.dtypes);
  if (flags.ops) spec.ops = parse_op_list(*flags.ops);
  if (flags.buffers) spec.buffer_modes = parse_buffer_mode_list(*flags.buffers);
  if (flags.launch) spec.launch_modes = parse_launch_mode_list(*flags.launch);
  if (flags.footprint) spec.footprints = parse_footprint_list(*flags.footprint);
  if (flags.cache) spec.cache_states = parse_cache_state_list(*flags.cache);
  if (flags.root) spec.root = *flags.root;
  if (flags.warmup) spec.warmup = *flags.warmup;
  if (flags.iters) spec.iters = *flags.iters;
  if (flags.check) spec.check = *flags.check;
  if (flags.name) spec.name = *flags.name;
  if (flags.repeats) spec.repeats = *flags.repeats;
  if (flags.order) spec.order = *flags.order;
  if (flags.seed) spec.seed = *flags.seed;
  if (flags.timeout_s) spec.timeout_s = *flags.timeout_s;
  if (flags.with_compute) spec.compute = parse_compute_load(*flags.with_compute);
  spec.stopping = flags.stopping;
  if (spec.stopping.min_iters > spec.stopping.max_iters) {
    throw UsageError("--min-iters " + std::to_string(spec.stopping.min_iters) + " is above --max-iters " +
                         std::to_string(spec.stopping.max_iters),
                     "make --min-iters at most --max-iters");
  }
  if (spec.stopping.min_seconds > spec.stopping.max_seconds) {
    throw UsageError("--min-time " + printf_text("%g", spec.stopping.min_seconds) + " is above --max-time " +
                         printf_text("%g", spec.stopping.max_seconds),
                     "make --min-time at most --max-time (raise --max-time with it)");
  }
}

RunSpec spec_from_overrides(const RunOverrides& flags) {
  RunSpec spec;
  spec.name = kDefaultRunName;
  set_default_measurements(spec);
  apply_overrides(flags, spec);
  spec.engine = flags.engine;
  return spec;
}

}  // namespace ncclsweep
