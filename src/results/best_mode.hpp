#pragma once
// Per size, the buffer and launch mode that gave the highest busbw: what
// a user tuning registration or graphs looks at first.
#include <vector>

#include "results/measurement_key.hpp"
#include "results/repeats.hpp"

namespace ncclsweep {

struct BestMode {
  MeasurementKey key;             // the winner's: its buffers and launch are the winning modes
  double busbw_gbps = 0;          // its median over repeats
  double default_busbw_gbps = 0;  // cuda-malloc + stream at the same size; 0 when not measured
  int modes = 0;                  // how many modes were measured at this size
};

// Only sizes measured in more than one mode; in key order.
std::vector<BestMode> best_modes(const std::vector<RepeatedMeasurement>& measurements);

}  // namespace ncclsweep
