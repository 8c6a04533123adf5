#pragma once
// One record of data describes each collective (the good idea in nccl-tests, without
// its globals): sizes, bus-bandwidth factor and where each output element comes from.
// Engines implement one call per collective; nothing else branches on the name.
#include <cstdint>
#include <span>
#include <string_view>

#include "core/units.hpp"

namespace ncclsweep {

// Where output element k of rank r comes from, for the check pattern (core/pattern.hpp).
enum class OutputLayout {
  gathered,          // out[k] = input of rank k / count at k % count        (all_gather)
  reduced_slice,     // out[k] = reduction at global index r * count + k     (reduce_scatter)
  reduced_whole,     // out[k] = reduction at index k                        (all_reduce)
  reduced_at_root,   // like reduced_whole, on the root only                 (reduce)
  from_root,         // out[k] = input of the root at k                      (broadcast)
  transposed,        // out[k] = input of rank k / count at r * count + k % count (alltoall)
  from_previous,     // out[k] = input of rank (r - 1) mod n at k            (sendrecv)
};

struct CollectiveKind {
  std::string_view name;       // "all_gather"
  std::string_view nccl_name;  // "AllGather", as NCCL logs it
  // The total size (nccl-tests convention) is count * ranks * element when true,
  // count * element otherwise; count is what each rank passes to the call.
  bool splits_across_ranks;
  bool reduces;
  bool has_root;
  bool supports_in_place;
  OutputLayout layout;
  double (*busbw_factor)(int ranks);
  Bytes (*send_bytes)(Bytes total, int ranks);  // per rank
  Bytes (*recv_bytes)(Bytes total, int ranks);  // per rank
};

// The bandwidths of a call of `total` bytes (the nccl-tests convention) that took
// `seconds`: algbw is total / time, busbw algbw x the collective's bus factor on `ranks`
// (what each link carried, comparable across rank counts). 0 for no time. Every measured
// figure is computed here.
double algbw_of(Bytes total, double seconds);
double busbw_of(const CollectiveKind& kind, Bytes total, double seconds, int ranks);
// The inverse, for estimates: the seconds a call of `total` bytes takes at a bus bandwidth
// of `busbw_bytes_per_s` (> 0) on `ranks` ranks.
double seconds_at_busbw(const CollectiveKind& kind, Bytes total, double busbw_bytes_per_s, int ranks);

// Throws UsageError listing the valid names.
const CollectiveKind& collective(std::string_view name);
std::span<const CollectiveKind> all_collectives();
// By the name NCCL logs ("AllGather"); nullptr when no collective has it.
const CollectiveKind* collective_by_nccl_name(std::string_view nccl_name);

// The element count each rank passes to the call for a total size, and the total size
// that count really moves (the requested size rounded down to a valid one).
std::uint64_t count_per_rank(const CollectiveKind& kind, Bytes total, int ranks, std::size_t element_bytes);
Bytes total_bytes(const CollectiveKind& kind, std::uint64_t count, int ranks, std::size_t element_bytes);

// Number of elements each rank's send and receive buffers hold for `count`.
std::uint64_t send_elements(const CollectiveKind& kind, std::uint64_t count, int ranks);
std::uint64_t recv_elements(const CollectiveKind& kind, std::uint64_t count, int ranks);

}  // namespace ncclsweep
