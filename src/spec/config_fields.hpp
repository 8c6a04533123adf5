#pragma once
// ncclConfig_t fields a sweep may set per communicator: the one table that spec checks,
// plans and the nccl engine's apply_config_field all read. Each row names the NCCL
// version that added the field, the environment variable that overrides it when set,
// and the values NCCL accepts for it (its own checks in ncclCommInitRankConfig;
// docs/nccl-settings.md#communicator-config-fields).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/nccl_version.hpp"
#include "spec/value_kind.hpp"

namespace ncclsweep {

// NCCL_VERSION_CODE of the newest NCCL whose config fields this table knows (2.28.9).
inline constexpr int kNewestKnownNcclVersion = 22809;

// One per row; the engine maps each to its ncclConfig_t member.
enum class ConfigFieldId {
  blocking,
  cga_cluster_size,
  min_ctas,
  max_ctas,
  net_name,
  split_share,
  traffic_class,
  comm_name,
  collnet_enable,
  cta_policy,
  shrink_share,
  nvls_ctas,
  n_channels_per_net_peer,
  nvlink_centric_sched,
};

struct ConfigField {
  ConfigFieldId id;
  std::string_view name;          // snake_case, as in sweep files: "max_ctas"
  std::string_view nccl_name;     // the ncclConfig_t member: "maxCTAs"
  int since_version;              // NCCL_VERSION_CODE that introduced it
  std::string_view override_env;  // set, this variable wins over the field; "" = none
  ValueKind value;                // integer ranges and text
  std::string_view description;
  std::string_view not_sweepable;  // why a sweep may not set it; "" = it may
};

// One field of a point's ncclConfig_t and its value, parsed once where the launch builds
// its points (runtime worker_groups) and where a worker reads its start: the nccl engine
// only copies it into ncclConfig_t.
struct ConfigSetting {
  const ConfigField* field = nullptr;
  std::string value;          // as written: what a text field holds, and what messages show
  std::optional<int> number;  // the value of an integer field (0/1 of a boolean one)

  std::string_view name() const;  // "max_ctas"
};

// Throws UsageError for a field that is unknown or may not be swept, or a value an
// integer field's ncclConfig_t member cannot hold. The value's range is the sweep's
// checks' concern (allow_unknown_values passes a newer NCCL's).
ConfigSetting config_setting(std::string_view name, const std::string& value);

std::span<const ConfigField> config_fields();
const ConfigField* find_config_field(std::string_view name);  // nullptr when unknown
std::vector<std::string> config_field_names();
std::vector<std::string> sweepable_config_field_names();


}  // namespace ncclsweep
