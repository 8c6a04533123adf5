#include "soak/duration.hpp"

#include <cmath>
#include <cstdlib>

#include "core/errors.hpp"

namespace ncclsweep::soak {

double parse_duration(const std::string& text, std::string_view flag) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m" || unit == "min") scale = 60;
  else if (unit == "h") scale = 3600;
  else if (unit == "d") scale = 86400;
  if (end == text.c_str() || scale == 0 || !(number > 0) || !std::isfinite(number)) {
    throw UsageError(std::string(flag) + " '" + text + "' is not a duration",
                     "write a positive number with s, m, h or d (seconds without one): 30s, 90m, 2h");
  }
  return number * scale;
}

}  // namespace ncclsweep::soak
