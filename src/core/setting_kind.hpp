#pragma once
// What kind of NCCL setting a sweep point sets, and whether it reached NCCL: one enum
// each, from the plan through the worker's verification to run.json and every report
// (docs/nccl-settings.md says what each kind needs).
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

enum class SettingKind {
  config_field,        // ncclConfig_t field: re-init in process
  env_reread,          // variable NCCL reads at each init: re-init in process
  env_process_cached,  // cached once per process: needs a process that never initialised NCCL
};
inline constexpr NameTable<SettingKind, 3> kSettingKindNames{
    "setting kind",
    {{{SettingKind::config_field, "config_field"},
      {SettingKind::env_reread, "env_reread"},
      {SettingKind::env_process_cached, "env_process_cached"}}}};
std::string_view name_of(SettingKind kind);
// The names above, and those run.json wrote before they were one ("config", "env_process").
// Throws UsageError for anything else.
SettingKind setting_kind_named(std::string_view name);

// Whether a setting reached NCCL on every rank (the worst over ranks).
enum class SettingStatus {
  unverified,  // not yet checked (what a worker is handed)
  applied,     // NCCL's log shows the value
  not_read,    // NCCL never read the variable
  mismatch,    // NCCL logged another value, or refused or replaced it
  by_config,   // a config field: NCCL takes it from ncclConfig_t, nothing to read back
};
inline constexpr NameTable<SettingStatus, 5> kSettingStatusNames{
    "setting status",
    {{{SettingStatus::unverified, "unverified"},
      {SettingStatus::applied, "applied"},
      {SettingStatus::not_read, "not-read"},
      {SettingStatus::mismatch, "mismatch"},
      {SettingStatus::by_config, "by-config"}}}};
std::string_view name_of(SettingStatus status);
// The names above; "" (a worker's request before it was typed) is unverified.
SettingStatus setting_status_named(std::string_view name);

}  // namespace ncclsweep
