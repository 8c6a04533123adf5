#pragma once
// How much memory a measurement's buffers span and what the GPU's cache holds when a
// timed call starts: two axes of a measurement that change small-size numbers by up to
// a third (docs/performance.md, "Buffer footprint"). Every record carries both.
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/name_table.hpp"
#include "core/units.hpp"

namespace ncclsweep {

// largest: one allocation at the run's largest size, and call k of a batch at offset
//   (k mod floor(allocation / size)) x size - nccl-tests' model (its startColl shifts each
//   iteration's buffers "to avoid cache effects"), so numbers compare with its logs.
// exact: buffers of exactly the call's size, every call at offset 0: the data stays in
//   the L2 cache from one call to the next when it fits.
// fixed: one allocation of `bytes` (at least the call's size), rotated like largest:
//   matches a reference run with another maximum (nccl-tests -e BYTES).
enum class FootprintMode { largest, exact, fixed };
inline constexpr NameTable<FootprintMode, 3> kFootprintModeNames{
    "buffer footprint mode",
    {{{FootprintMode::largest, "largest"}, {FootprintMode::exact, "exact"}, {FootprintMode::fixed, "fixed"}}}};
constexpr std::string_view name_of(FootprintMode mode) { return kFootprintModeNames.name(mode); }

struct BufferFootprint {
  FootprintMode mode = FootprintMode::largest;
  Bytes bytes = 0;  // fixed only
  auto operator<=>(const BufferFootprint&) const = default;
};

// "largest", "exact", or the fixed size in bytes ("268435456"): what records carry.
std::string label_of(const BufferFootprint& footprint);
// One of largest | exact | a size, as label_of writes it or a user types it; UsageError.
BufferFootprint parse_footprint(const std::string& item);
// Comma list of largest | exact | a size (64M, 1GiB, 268435456), duplicates dropped;
// UsageError naming the bad entry.
std::vector<BufferFootprint> parse_footprint_list(const std::string& text);

// The bytes each buffer spans for a call of `call_bytes` (its larger buffer) when the
// run's largest call is `largest_bytes`: never less than the call needs.
Bytes footprint_bytes(const BufferFootprint& footprint, Bytes call_bytes, Bytes largest_bytes);
// How many distinct offsets the calls rotate through: floor(footprint / call), at least 1.
std::uint64_t rotation_offsets(Bytes footprint, Bytes call_bytes);

// What an engine allocates for one call and where call k of a batch runs: both engines
// follow it, so host and GPU buffers have the same semantics.
struct BufferSpan {
  Bytes send_bytes = 0, recv_bytes = 0;  // each buffer's allocation
  std::uint64_t offsets = 1;             // distinct offsets calls rotate through
  Bytes stride = 0;                      // bytes between two offsets: the call's larger buffer
  Bytes offset_of(std::uint64_t call_index) const { return call_index % offsets * stride; }
};
// `send_bytes`/`recv_bytes`: what the call needs; `footprint`: CollectiveCall::footprint_bytes.
// A footprint no larger than the call's larger buffer means exact buffers at offset 0;
// a larger one, both buffers that large (as nccl-tests allocates both at -e), rotated.
BufferSpan buffer_span(Bytes send_bytes, Bytes recv_bytes, Bytes footprint);

// warm: timed calls back to back; what earlier calls left in the L2 cache stays there.
// flush: before every timed sample, outside the timed region, a read of a scratch buffer
//   larger than the L2 cache evicts the buffers (mpi engine: a host buffer larger than
//   the last-level cache).
enum class CacheState { warm, flush };
inline constexpr NameTable<CacheState, 2> kCacheStateNames{
    "cache state", {{{CacheState::warm, "warm"}, {CacheState::flush, "flush"}}}};
constexpr std::string_view name_of(CacheState state) { return kCacheStateNames.name(state); }
std::vector<CacheState> parse_cache_state_list(const std::string& text);

}  // namespace ncclsweep
