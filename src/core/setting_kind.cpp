#include "core/setting_kind.hpp"

namespace ncclsweep {

std::string_view name_of(SettingKind kind) { return kSettingKindNames.name(kind); }

SettingKind setting_kind_named(std::string_view name) {
  if (name == "config") return SettingKind::config_field;
  if (name == "env_process") return SettingKind::env_process_cached;
  return kSettingKindNames.parse(name);
}

std::string_view name_of(SettingStatus status) { return kSettingStatusNames.name(status); }

SettingStatus setting_status_named(std::string_view name) {
  if (name.empty()) return SettingStatus::unverified;
  return kSettingStatusNames.parse(name);
}

}  // namespace ncclsweep
