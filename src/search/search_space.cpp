#include "search/search_space.hpp"

#include <algorithm>

namespace ncclsweep {

std::optional<int> SearchSpace::find(const std::vector<int>& values) const {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].values == values) return static_cast<int>(i);
  }
  return std::nullopt;
}

bool SizeBand::holds(const CollectiveKind& of_collective, Bytes size) const {
  return &of_collective == collective && std::find(sizes.begin(), sizes.end(), size) != sizes.end();
}

std::string label_of(const SizeBand& band) {
  const std::string name(band.collective->name);
  if (band.sizes.empty()) return name;
  if (band.sizes.size() == 1) return name + " " + format_bytes(band.sizes.front());
  return name + " " + format_bytes(band.sizes.front()) + " .. " + format_bytes(band.sizes.back());
}

std::vector<SizeBand> make_bands(const std::vector<MeasuredSizes>& measured, const std::vector<Bytes>& edges) {
  constexpr std::size_t kAutoBands = 3;
  std::vector<SizeBand> bands;
  for (const MeasuredSizes& m : measured) {
    std::vector<Bytes> sizes = m.sizes;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<std::vector<Bytes>> parts;
    if (edges.empty()) {
      const std::size_t count = std::min(kAutoBands, sizes.size());
      for (std::size_t b = 0; b < count; ++b) {
        const std::size_t from = b * sizes.size() / count, to = (b + 1) * sizes.size() / count;
        parts.emplace_back(sizes.begin() + static_cast<long>(from), sizes.begin() + static_cast<long>(to));
      }
    } else {
      std::vector<Bytes> cuts = edges;
      std::sort(cuts.begin(), cuts.end());
      std::vector<Bytes> current;
      std::size_t next_cut = 0;
      for (const Bytes size : sizes) {
        bool crossed = false;
        while (next_cut < cuts.size() && size >= cuts[next_cut]) ++next_cut, crossed = true;
        if (crossed && !current.empty()) parts.push_back(std::move(current)), current.clear();
        current.push_back(size);
      }
      if (!current.empty()) parts.push_back(std::move(current));
    }
    for (auto& part : parts) bands.push_back({m.collective, std::move(part)});
  }
  return bands;
}

}  // namespace ncclsweep
