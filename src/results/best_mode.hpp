#pragma once
// Per size, the buffer and launch mode that gave the highest busbw (issue 7 item 4): what
// a user tuning registration or graphs looks at first.
#include <string>
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

struct BestMode {
  std::string point, collective, dtype, op, placement, comm_group;
  Bytes size_bytes = 0;
  std::string conditions;       // results/conditions.hpp footprint_tag: "" for largest and warm
  std::string buffers, launch;  // the winning modes
  double busbw_gbps = 0;        // theirs (the median over repeats)
  double default_busbw_gbps = 0;  // cuda-malloc + stream at the same size; 0 when not measured
  int modes = 0;                  // how many modes were measured at this size
};

// Only sizes measured in more than one mode; repeats of a mode count by their median.
// In record order of first appearance.
std::vector<BestMode> best_modes(const std::vector<MeasurementRecord>& records);

}  // namespace ncclsweep
