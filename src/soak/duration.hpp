#pragma once
// Durations as flags write them: "90", "90s", "30m", "2h", "1.5h", "1d".
#include <string>
#include <string_view>

namespace ncclsweep::soak {

// Seconds. Throws UsageError naming `flag` and the accepted forms.
double parse_duration(const std::string& text, std::string_view flag);

}  // namespace ncclsweep::soak
