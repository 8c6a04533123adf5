#pragma once
#include <chrono>
#include <string>

namespace ncclsweep {

// "2026-11-29T18:30:05Z"
std::string iso_utc(std::chrono::system_clock::time_point t);
// "20261129T183005Z": sorts by time, safe in paths
std::string compact_utc(std::chrono::system_clock::time_point t);

}  // namespace ncclsweep
