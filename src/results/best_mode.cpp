#include "results/best_mode.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/iteration_stats.hpp"
#include "results/conditions.hpp"

namespace ncclsweep {

std::vector<BestMode> best_modes(const std::vector<MeasurementRecord>& records) {
  // The footprint and cache state are conditions, not modes to choose from: part of the size.
  using SizeKey = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, Bytes, std::string>;
  using ModeKey = std::pair<std::string, std::string>;  // buffers, launch
  std::vector<SizeKey> order;
  std::map<SizeKey, std::vector<std::pair<ModeKey, std::vector<double>>>> busbw;  // modes in order seen
  for (const MeasurementRecord& r : records) {
    const SizeKey size{r.point, r.collective, r.dtype, r.op, r.placement, r.comm_group, r.size_bytes, footprint_tag(r)};
    auto [it, fresh] = busbw.try_emplace(size);
    if (fresh) order.push_back(size);
    const ModeKey mode{r.buffers, r.launch};
    auto& modes = it->second;
    auto m = std::find_if(modes.begin(), modes.end(), [&](const auto& e) { return e.first == mode; });
    if (m == modes.end()) m = modes.insert(modes.end(), {mode, {}});
    m->second.push_back(r.busbw_gbps);
  }
  std::vector<BestMode> best;
  for (const SizeKey& size : order) {
    const auto& modes = busbw.at(size);
    if (modes.size() < 2) continue;
    BestMode b;
    std::tie(b.point, b.collective, b.dtype, b.op, b.placement, b.comm_group, b.size_bytes, b.conditions) = size;
    b.modes = static_cast<int>(modes.size());
    b.busbw_gbps = -1;
    for (const auto& [mode, values] : modes) {
      const double median = median_of(values);
      if (mode == ModeKey{"cuda-malloc", "stream"}) b.default_busbw_gbps = median;
      if (median > b.busbw_gbps) {
        b.busbw_gbps = median;
        std::tie(b.buffers, b.launch) = mode;
      }
    }
    best.push_back(b);
  }
  return best;
}

}  // namespace ncclsweep
