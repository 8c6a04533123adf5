#pragma once
// ncclConfig_t fields a sweep may set per communicator, the NCCL version that added
// each, and the environment variable that overrides it when set
// (docs/nccl-settings.md#communicator-config-fields).
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

// NCCL_VERSION_CODE of the newest NCCL whose config fields this table knows (2.28.9).
inline constexpr int kNewestKnownNcclVersion = 22809;

enum class ConfigValueType { integer, text };

struct ConfigField {
  std::string_view name;          // snake_case, as in sweep files: "max_ctas"
  std::string_view nccl_name;     // the ncclConfig_t member: "maxCTAs"
  int since_version;              // NCCL_VERSION_CODE that introduced it
  std::string_view override_env;  // set, this variable wins over the field; "" = none
  ConfigValueType type;
  std::string_view description;
};

std::span<const ConfigField> config_fields();
const ConfigField* find_config_field(std::string_view name);  // nullptr when unknown
std::vector<std::string> config_field_names();

// "2.28.9" from 22809 (and "2.14.3" from 21403).
std::string nccl_version_text(int version_code);

}  // namespace ncclsweep
