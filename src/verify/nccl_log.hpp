#pragma once
// Reads NCCL's own INFO log (NCCL_DEBUG=INFO, subsystems INIT and ENV) to tell whether
// a setting reached NCCL, and what NCCL built. nccl-facts.md section 2 lists the lines.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace ncclsweep {

struct NcclLogFacts {
  // "NCCL_X set by environment to V" lines: variable -> value (the last one seen).
  std::map<std::string, std::string> set_by_environment;
  // "Invalid value X for NCCL_Y, using default Z." lines: variable -> the rejected value.
  std::map<std::string, std::string> invalid;
  std::set<std::string> transports;  // "via P2P/CUMEM/read", "via NET/IB/0", "via SHM/direct/direct"
  int coll_channels = -1;            // "<n> coll channels", -1 when not logged
  // With the TUNING subsystem, per collective and size as NCCL logs them
  // ("AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}"):
  // "AllGather 1048576 B" -> "RING/SIMPLE, 24 channels" (the last call's choice).
  std::map<std::string, std::string> algorithms;
};

// Adds what `text` (a piece of one process's log) says to `facts`.
void scan_nccl_log(std::string_view text, NcclLogFacts& facts);

// One process's log file read as it grows: each update() scans only the complete lines
// added since the last, so verifying point after point costs what the point logged, not
// the whole file (rank 0 logs a TUNING line per call). Facts accumulate, as NCCL logs a
// process-cached variable only at the first init.
class NcclLogFollower {
 public:
  explicit NcclLogFollower(std::string path) : path_(std::move(path)) {}
  const NcclLogFacts& update();

 private:
  std::string path_;
  std::uint64_t offset_ = 0;  // just past the last complete line scanned
  NcclLogFacts facts_;
};

enum class SettingStatus {
  applied,     // NCCL logged the setting with the wanted value
  not_read,    // NCCL never logged the variable: it did not read it (e.g. an IB knob without IB)
  mismatch,    // NCCL logged another value, or rejected it as invalid
  by_config,   // an ncclConfig_t field: passed through the API, nothing to cache
};
std::string_view name_of(SettingStatus status);

// What the log says about one environment setting.
SettingStatus verify_env_setting(const NcclLogFacts& facts, const std::string& variable, const std::string& value);

}  // namespace ncclsweep
