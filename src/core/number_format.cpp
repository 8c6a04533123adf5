#include "core/number_format.hpp"

#include <cmath>
#include <cstdio>

namespace ncclsweep {

std::string significant3(double value) {
  if (value == 0 || !std::isfinite(value)) return value == 0 ? "0" : "n/a";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(value))));
  const int decimals = std::max(0, 2 - magnitude);
  const double scale = std::pow(10.0, magnitude - 2);
  const double rounded = decimals > 0 ? value : std::round(value / scale) * scale;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, rounded);
  return buf;
}

std::string percent_change(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1) * 100);
  return buf;
}

}  // namespace ncclsweep
