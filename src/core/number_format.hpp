#pragma once
// Numbers as reports print them: 3 significant digits, never an exponent, so a
// committed summary changes only where a result changed.
#include <string>

namespace ncclsweep {

// 245.62 -> "246", 37.58 -> "37.6", 0.014 -> "0.0140", 1234.5 -> "1230", 0 -> "0".
std::string significant3(double value);

// "+8.1%" / "-21.0%" for a share of 0.081 / -0.21, with `decimals` after the point.
std::string signed_percent(double share, int decimals = 1);

// "+8.1%" / "-21.0%" for a ratio of 1.081 / 0.79.
std::string percent_change(double ratio);

}  // namespace ncclsweep
