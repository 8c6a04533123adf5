#include "compare/noise_band.hpp"

#include <algorithm>
#include <cstdio>

namespace ncclsweep {

double noise_band_gbps(const SideRow& row, const NoiseModel& noise) {
  const double relative = std::max(noise.relative, row.measured_spread.value_or(0));
  if (row.repeats > 1) return relative * row.busbw_gbps + row.busbw_resolution_gbps;
  // busbw = bytes factor / time, so a time moved by j moves busbw by about busbw x j / t.
  // A row without a time (an import that lacks it) gets no time part.
  const double jitter = row.time_us > 0 ? noise.time_us / row.time_us : 0;
  return (relative + jitter) * row.busbw_gbps + row.busbw_resolution_gbps;
}

std::string describe_noise(const NoiseModel& noise) {
  char text[160];
  std::snprintf(text, sizeof text,
                "noise band: +-%g%% + %g us of time per single figure; rows with repeats use their measured spread",
                noise.relative * 100, noise.time_us);
  return text;
}

}  // namespace ncclsweep
