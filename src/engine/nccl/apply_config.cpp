#include "engine/nccl/apply_config.hpp"

#include <string>

#include "core/errors.hpp"
#include "core/nccl_version.hpp"
#include "spec/config_fields.hpp"

namespace ncclsweep {
namespace {

// The ncclConfig_t member of a row of the config field table; neither when the NCCL
// headers built against predate it. No default case: a row added to the table without
// a case here is a compiler warning (-Wswitch).
struct Member {
  int* integer = nullptr;
  const char** text = nullptr;
};

Member member_of(ConfigFieldId id, ncclConfig_t& config) {
  switch (id) {
    case ConfigFieldId::blocking: return {&config.blocking};
    case ConfigFieldId::cga_cluster_size: return {&config.cgaClusterSize};
    case ConfigFieldId::min_ctas: return {&config.minCTAs};
    case ConfigFieldId::max_ctas: return {&config.maxCTAs};
    case ConfigFieldId::net_name: return {nullptr, &config.netName};
    case ConfigFieldId::split_share: return {&config.splitShare};
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 25, 0)
    case ConfigFieldId::traffic_class: return {&config.trafficClass};
#else
    case ConfigFieldId::traffic_class: return {};
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    case ConfigFieldId::comm_name: return {nullptr, &config.commName};
    case ConfigFieldId::collnet_enable: return {&config.collnetEnable};
    case ConfigFieldId::cta_policy: return {&config.CTAPolicy};
    case ConfigFieldId::shrink_share: return {&config.shrinkShare};
    case ConfigFieldId::nvls_ctas: return {&config.nvlsCTAs};
#else
    case ConfigFieldId::comm_name:
    case ConfigFieldId::collnet_enable:
    case ConfigFieldId::cta_policy:
    case ConfigFieldId::shrink_share:
    case ConfigFieldId::nvls_ctas: return {};
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    case ConfigFieldId::n_channels_per_net_peer: return {&config.nChannelsPerNetPeer};
    case ConfigFieldId::nvlink_centric_sched: return {&config.nvlinkCentricSched};
#else
    case ConfigFieldId::n_channels_per_net_peer:
    case ConfigFieldId::nvlink_centric_sched: return {};
#endif
  }
  return {};
}

}  // namespace

void apply_config_field(const ConfigSetting& setting, ncclConfig_t& config) {
  // config_setting() checked the field and parsed an integer's value; what is left is
  // whether this build's ncclConfig_t has the member.
  const Member member = member_of(setting.field->id, config);
  if (member.text) {
    *member.text = setting.value.c_str();
    return;
  }
  if (member.integer && setting.number) {
    *member.integer = *setting.number;
    return;
  }
  throw UsageError("ncclConfig_t of NCCL " + nccl_version_text(NCCL_VERSION_CODE) + " has no field " +
                   std::string(setting.field->nccl_name) + " (config " + std::string(setting.name()) + ")",
                   "config fields are checked against the NCCL header ncclsweep was built with; rebuild against this NCCL");
}

}  // namespace ncclsweep
