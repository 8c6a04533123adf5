#include "core/collective.hpp"

#include <array>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {
namespace {

double one(int) { return 1.0; }
double ring_share(int n) { return n > 0 ? static_cast<double>(n - 1) / n : 0.0; }
double all_reduce_factor(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0.0; }
Bytes whole(Bytes total, int) { return total; }
Bytes slice(Bytes total, int n) { return n > 0 ? total / static_cast<Bytes>(n) : 0; }

// Sizes and busbw factors in nccl-tests' convention (README, "Measurement").
constexpr std::array<CollectiveKind, 7> kCollectives{{
    {"all_gather", "AllGather", true, false, false, true, OutputLayout::gathered, ring_share, slice, whole},
    {"reduce_scatter", "ReduceScatter", true, true, false, true, OutputLayout::reduced_slice, ring_share, whole,
     slice},
    {"all_reduce", "AllReduce", false, true, false, true, OutputLayout::reduced_whole, all_reduce_factor, whole,
     whole},
    {"broadcast", "Broadcast", false, false, true, true, OutputLayout::from_root, one, whole, whole},
    {"reduce", "Reduce", false, true, true, true, OutputLayout::reduced_at_root, one, whole, whole},
    // An in-place alltoall or sendrecv overwrites data a peer has not read yet.
    {"alltoall", "AlltoAll", true, false, false, false, OutputLayout::transposed, ring_share, whole, whole},
    {"sendrecv", "SendRecv", false, false, false, false, OutputLayout::from_previous, one, whole, whole},
}};

}  // namespace

std::span<const CollectiveKind> all_collectives() { return kCollectives; }

const CollectiveKind* collective_by_nccl_name(std::string_view nccl_name) {
  for (const auto& c : kCollectives) {
    if (c.nccl_name == nccl_name) return &c;
  }
  return nullptr;
}

const CollectiveKind& collective(std::string_view name) {
  for (const auto& c : kCollectives) {
    if (c.name == name) return c;
  }
  std::string names;
  std::vector<std::string> candidates;
  for (const auto& c : kCollectives) {
    names += (names.empty() ? "" : ", ") + std::string(c.name);
    candidates.emplace_back(c.name);
  }
  throw UsageError("unknown collective '" + std::string(name) + "'" + did_you_mean(name, candidates), "use one of: " + names);
}

std::uint64_t count_per_rank(const CollectiveKind& kind, Bytes total, int ranks, std::size_t element_bytes) {
  const Bytes unit = element_bytes * (kind.splits_across_ranks ? static_cast<Bytes>(ranks) : 1);
  return unit == 0 ? 0 : total / unit;
}

Bytes total_bytes(const CollectiveKind& kind, std::uint64_t count, int ranks, std::size_t element_bytes) {
  return count * element_bytes * (kind.splits_across_ranks ? static_cast<Bytes>(ranks) : 1);
}

std::uint64_t send_elements(const CollectiveKind& kind, std::uint64_t count, int ranks) {
  const Bytes total = total_bytes(kind, count, ranks, 1);
  return kind.send_bytes(total, ranks);
}

std::uint64_t recv_elements(const CollectiveKind& kind, std::uint64_t count, int ranks) {
  const Bytes total = total_bytes(kind, count, ranks, 1);
  return kind.recv_bytes(total, ranks);
}

double algbw_of(Bytes total, double seconds) { return seconds > 0 ? static_cast<double>(total) / seconds / 1e9 : 0; }

double busbw_of(const CollectiveKind& kind, Bytes total, double seconds, int ranks) {
  return algbw_of(total, seconds) * kind.busbw_factor(ranks);
}

double seconds_at_busbw(const CollectiveKind& kind, Bytes total, double busbw_bytes_per_s, int ranks) {
  return static_cast<double>(total) * kind.busbw_factor(ranks) / busbw_bytes_per_s;
}

}  // namespace ncclsweep
