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

std::string signed_percent(double share, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.*f%%", decimals, share * 100);
  return buf;
}

std::string percent_change(double ratio) { return signed_percent(ratio - 1); }

}  // namespace ncclsweep
