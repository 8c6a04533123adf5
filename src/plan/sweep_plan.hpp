#pragma once
// Sweep -> points -> isolation groups (pure: no MPI, no GPU). Each group shares one
// process-level environment and runs in fresh worker processes; inside a group each
// point gets a freshly initialised communicator (docs/nccl-settings.md says why).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spec/run_spec.hpp"
#include "spec/sweep.hpp"
#include "core/run_options.hpp"
#include "core/setting_kind.hpp"

namespace ncclsweep {

struct Setting {
  std::string name;   // "NCCL_PROTO" or "max_ctas"
  std::string value;
  SettingKind kind;
};

struct SweepPoint {
  int index = 0;
  std::string label;  // "NCCL_PROTO=LL NCCL_MAX_NCHANNELS=4", or "default"
  std::vector<Setting> settings;
  int isolation_group = 0;  // index into SweepPlan::isolation_groups
  bool expected_mismatch = false;  // --isolation reinit with a process-cached setting that differs from its group's
};

struct IsolationGroup {
  int index = 0;
  std::map<std::string, std::string> process_env;  // process-cached variables fixed for the group
  std::vector<int> points;
};

struct SweepPlan {
  RunSpec measurements;
  std::vector<SweepPoint> points;
  std::vector<IsolationGroup> isolation_groups;
  int baseline = 0;
  int repeats = 1;
  RepeatOrder order = RepeatOrder::sequential;
  std::uint64_t seed = 0;
  Isolation isolation = Isolation::automatic;
  std::vector<std::string> notes;
};

// The most points one grid may expand to; more is almost always a mistake.
inline constexpr std::size_t kMaxSweepPoints = 10000;

struct PlanOptions {
  Isolation isolation = Isolation::automatic;
  std::optional<EngineKind> engine;     // empty: the sweep's
  std::vector<std::string> env_axes;    // "NCCL_PROTO=LL,Simple": add to / replace the file's
  std::vector<std::string> config_axes; // "max_ctas=8,32"
  SweepContext context;
};

SettingKind classify_setting(const std::string& name);

// For the runtime: the variables a point sets (re-read and process-cached alike) and its
// config fields, by name.
std::map<std::string, std::string> env_of(const SweepPoint& point);
std::map<std::string, std::string> config_of(const SweepPoint& point);

// Throws UsageError for bad options or command-line axes, an exclude that removes every
// point, or a baseline no point matches.
SweepPlan plan_sweep(const Sweep& sweep, const PlanOptions& options);

}  // namespace ncclsweep
