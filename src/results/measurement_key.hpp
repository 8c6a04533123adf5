#pragma once
// What makes a measurement the measurement it is, as one typed value: every printer,
// resume and compare identify measurements by this key, so a field added here cannot be
// remembered by one of them and forgotten by another. The timings are what a
// measurement produced, not what it is, and are not part of it.
#include <compare>
#include <optional>
#include <string>

#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/collective.hpp"
#include "core/compute_load.hpp"
#include "core/dtype.hpp"
#include "core/units.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// The communicator a measurement ran on: the world, or sub-communicator groups of one
// kind and size that all ran at once (docs/groups.md). `ranks` is the ranks of one
// group, or of the world.
struct CommunicatorShape {
  CommunicatorKind kind = CommunicatorKind::world;
  int ranks = 0;
  bool is_world() const { return kind == CommunicatorKind::world; }
  // The world first, then groups by kind and size.
  std::strong_ordering operator<=>(const CommunicatorShape& other) const {
    if (const auto c = other.is_world() <=> is_world(); c != 0) return c;
    if (const auto c = kind <=> other.kind; c != 0) return c;
    return ranks <=> other.ranks;
  }
  bool operator==(const CommunicatorShape&) const = default;
};

// Fields are in the order reports sort by. Collective and dtype point into their tables
// (core/collective.hpp, core/dtype.hpp), so they compare in table order.
struct MeasurementKey {
  const CollectiveKind* collective = nullptr;
  const DataType* dtype = nullptr;
  std::optional<ReduceOp> op;  // empty for collectives that do not reduce ("none")
  int root = -1;
  CommunicatorShape communicator;
  BufferMode buffers = BufferMode::cuda_malloc;
  LaunchMode launch = LaunchMode::stream;
  // Conditions the call ran under (core/buffer_footprint.hpp): records from before they
  // existed read as nccl-tests' model, largest and warm.
  BufferFootprint footprint;
  CacheState cache = CacheState::warm;
  // The compute it was measured beside (docs/overlap.md); empty: none. Kept out of
  // conditions_text, so recommend still reads these rows as measured the default way.
  std::optional<ComputeLoad> compute;
  Placement placement = Placement::out_of_place;
  std::string point = "default";
  Bytes size_bytes = 0;       // what the call moved
  Bytes requested_bytes = 0;  // what was asked for; two requests can round to one size
  int repeat = 0;
  auto operator<=>(const MeasurementKey&) const = default;
};

// Throws UsageError for a collective, dtype, op or mode name it does not know.
MeasurementKey key_of(const MeasurementRecord& record);

// The key without its repeat: what the repeats of one measurement share.
MeasurementKey without_repeat(MeasurementKey key);

// The key without point, sizes and repeat: the measurements a report shows as one
// table, one row per size and one column per point.
MeasurementKey series_of(MeasurementKey key);

// "all_gather float32 sum", then "on dp groups of 2", "buffers nccl-register, launch
// graph", "footprint exact, cache flush" where they differ from the world and the defaults.
std::string series_title(const MeasurementKey& key);

// "buffers nccl-register, footprint exact": the modes and conditions that differ from
// the defaults (cuda-malloc, stream, largest, warm); "" when none does.
std::string conditions_text(const MeasurementKey& key);
// Only its buffer and launch modes: "buffers nccl-register, launch graph", "" for
// cuda-malloc, stream.
std::string call_modes_text(const MeasurementKey& key);
std::string call_modes_text(BufferMode buffers, LaunchMode launch);
// Only its footprint and cache parts: "footprint exact, cache flush", "" for largest, warm.
std::string footprint_text(const MeasurementKey& key);
std::string footprint_text(const BufferFootprint& footprint, CacheState cache);

// "dp groups of 2".
std::string communicator_text(const CommunicatorShape& group);

// "sum", or "none" for a collective that does not reduce.
std::string_view op_name(const MeasurementKey& key);

}  // namespace ncclsweep
