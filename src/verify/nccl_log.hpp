#pragma once
// Reads NCCL's own INFO log (NCCL_DEBUG=INFO, subsystems INIT and ENV) to tell whether
// a setting reached NCCL, and what NCCL built. docs/nccl-settings.md lists the lines.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/setting_kind.hpp"

namespace ncclsweep {

struct NcclLogFacts {
  // "NCCL_X set by environment to V" lines: variable -> value (the last one seen).
  std::map<std::string, std::string> set_by_environment;
  // Values NCCL rejected or replaced: variable -> NCCL's words (the text after "NCCL INFO "
  // or "NCCL WARN "). From "Invalid value X for NCCL_Y, using default Z." (an integer it
  // could not parse), "Invalid NCCL_NTHREADS 100 (must be a multiple of 32)" (one it
  // clamped), and, for NCCL_ALGO and NCCL_PROTO, "Unrecognized element token", "Unrecognized
  // prefix token", "All entries except the first must have a prefix" (these do not name
  // the variable: it is the one whose "set by environment" value they quote) and "no
  // algorithm/protocol available ... NCCL_ALGO was set to X.".
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
// the whole file (rank 0 logs a TUNING line per call). Facts accumulate over the process,
// as NCCL logs a process-cached variable only at the first init; the point's facts hold
// only what was logged since mark_point(), so a variable one point set and NCCL re-read
// never counts for the next point.
class NcclLogFollower {
 public:
  explicit NcclLogFollower(std::string path) : path_(std::move(path)) {}
  // Call before a point's communicator init: later lines belong to that point.
  void mark_point();
  // Scans what was added; returns the process's facts.
  const NcclLogFacts& update();
  const NcclLogFacts& process_facts() const { return facts_; }
  const NcclLogFacts& point_facts() const { return point_facts_; }

 private:
  std::string path_;
  std::uint64_t offset_ = 0;  // just past the last complete line scanned
  NcclLogFacts facts_;
  NcclLogFacts point_facts_;
};

// SettingStatus (core/setting_kind.hpp): applied, not_read (e.g. an IB knob without IB),
// mismatch; by_config is for config fields, which the log does not judge.
// What the log says about one environment setting. An integer NCCL logs as it parsed it
// ("4."): the wanted value applied only when it is that integer in full (strtoll's bases:
// "0x10" is 16), since NCCL reads "1x" as 1 and "abc" as 0 without a word.
SettingStatus verify_env_setting(const NcclLogFacts& facts, const std::string& variable, const std::string& value);

}  // namespace ncclsweep
