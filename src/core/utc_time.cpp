#include "core/utc_time.hpp"

#include <ctime>

namespace ncclsweep {
namespace {

std::string format_utc(std::chrono::system_clock::time_point t, const char* format) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &parts);
  return buf;
}

}  // namespace

std::string iso_utc(std::chrono::system_clock::time_point t) { return format_utc(t, "%Y-%m-%dT%H:%M:%SZ"); }
std::string compact_utc(std::chrono::system_clock::time_point t) { return format_utc(t, "%Y%m%dT%H%M%SZ"); }

}  // namespace ncclsweep
