#pragma once
// What a search picks among (docs/search.md): candidates, each one value per axis, and
// the size bands a winner is chosen for. Pure data; the runtime maps a candidate back to
// the sweep point and call modes it measures.
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/units.hpp"

namespace ncclsweep {

struct SearchAxis {
  std::string name;                 // "NCCL_PROTO", "buffers", "footprint"
  std::vector<std::string> values;  // in the sweep's order
};

struct Candidate {
  std::string label;        // "NCCL_PROTO=LL footprint=exact", or "default"
  std::vector<int> values;  // index into each axis's values
};

struct SearchSpace {
  std::vector<SearchAxis> axes;
  std::vector<Candidate> candidates;
  int baseline = 0;
  // The candidate with these axis values, when the grid holds it (an exclude may not).
  std::optional<int> find(const std::vector<int>& values) const;
};

// Adjacent measured sizes of one collective for which one winner is chosen.
struct SizeBand {
  const CollectiveKind* collective = nullptr;
  std::vector<Bytes> sizes;  // ascending
  bool holds(const CollectiveKind& of_collective, Bytes size) const;
};
std::string label_of(const SizeBand& band);  // "all_reduce 1 MiB .. 16 MiB"

// The sizes measured per collective, cut into bands: at every edge (a band holds the
// sizes from one edge up to below the next), or with no edges (auto) into at most three
// bands of adjacent sizes, as even in count as they go (small, middle, large sizes).
struct MeasuredSizes {
  const CollectiveKind* collective = nullptr;
  std::vector<Bytes> sizes;
};
std::vector<SizeBand> make_bands(const std::vector<MeasuredSizes>& measured, const std::vector<Bytes>& edges);

}  // namespace ncclsweep
