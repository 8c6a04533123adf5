#include "engine/nccl/apply_config.hpp"

#include <exception>
#include <string>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

// ncclConfig_t fields by their snake_case names (docs/nccl-settings.md). `blocking`
// is not here: ncclsweep's calls assume blocking communicators.
struct ConfigField {
  const char* name;
  int ncclConfig_t::*int_member;
  const char* ncclConfig_t::*text_member;
};
constexpr ConfigField kConfigFields[] = {
    {"cga_cluster_size", &ncclConfig_t::cgaClusterSize, nullptr},
    {"min_ctas", &ncclConfig_t::minCTAs, nullptr},
    {"max_ctas", &ncclConfig_t::maxCTAs, nullptr},
    {"net_name", nullptr, &ncclConfig_t::netName},
    {"split_share", &ncclConfig_t::splitShare, nullptr},
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 25, 0)
    {"traffic_class", &ncclConfig_t::trafficClass, nullptr},
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    {"comm_name", nullptr, &ncclConfig_t::commName},
    {"collnet_enable", &ncclConfig_t::collnetEnable, nullptr},
    {"cta_policy", &ncclConfig_t::CTAPolicy, nullptr},
    {"shrink_share", &ncclConfig_t::shrinkShare, nullptr},
    {"nvls_ctas", &ncclConfig_t::nvlsCTAs, nullptr},
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    {"n_channels_per_net_peer", &ncclConfig_t::nChannelsPerNetPeer, nullptr},
    {"nvlink_centric_sched", &ncclConfig_t::nvlinkCentricSched, nullptr},
#endif
};

}  // namespace

void apply_config_field(const ConfigSetting& setting, ncclConfig_t& config) {
  for (const ConfigField& field : kConfigFields) {
    if (setting.field != field.name) continue;
    if (field.text_member) {
      config.*field.text_member = setting.value.c_str();
      return;
    }
    try {
      std::size_t used = 0;
      config.*field.int_member = std::stoi(setting.value, &used);
      if (used == setting.value.size()) return;
    } catch (const std::exception&) {
    }
    throw UsageError("config field " + setting.field + " needs an integer, not '" + setting.value + "'");
  }
  throw UsageError("ncclConfig_t of NCCL " + std::to_string(NCCL_VERSION_CODE) + " has no field '" + setting.field +
                   "'", "see docs/sweep-files.md for the config fields");
}

}  // namespace ncclsweep
