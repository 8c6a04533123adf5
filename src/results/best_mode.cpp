#include "results/best_mode.hpp"

#include <map>

namespace ncclsweep {

std::vector<BestMode> best_modes(const std::vector<RepeatedMeasurement>& measurements) {
  // The key with the default modes stands for "this size, whatever the mode".
  std::map<MeasurementKey, std::vector<const RepeatedMeasurement*>> by_size;
  for (const RepeatedMeasurement& m : measurements) {
    MeasurementKey size = m.key;
    size.buffers = BufferMode::cuda_malloc;
    size.launch = LaunchMode::stream;
    by_size[size].push_back(&m);
  }
  std::vector<BestMode> best;
  for (const auto& [size, modes] : by_size) {
    if (modes.size() < 2) continue;
    BestMode b;
    b.modes = static_cast<int>(modes.size());
    b.busbw_gbps = -1;
    for (const RepeatedMeasurement* m : modes) {
      const double median = m->busbw_gbps.median;
      if (m->key == size) b.default_busbw_gbps = median;
      if (median > b.busbw_gbps) {
        b.busbw_gbps = median;
        b.key = m->key;
      }
    }
    best.push_back(b);
  }
  return best;
}

}  // namespace ncclsweep
