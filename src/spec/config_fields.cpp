#include "spec/config_fields.hpp"

#include <algorithm>
#include <array>

namespace ncclsweep {
namespace {

constexpr ConfigValueType I = ConfigValueType::integer;
constexpr ConfigValueType S = ConfigValueType::text;

// Versions from NCCL's nccl.h history; overrides from envConfigOverride() in 2.28.9.
constexpr std::array kFields = std::to_array<ConfigField>({
    {"blocking", "blocking", 21400, "NCCL_COMM_BLOCKING", I, "0: non-blocking communicator calls"},
    {"cga_cluster_size", "cgaClusterSize", 21700, "NCCL_CGA_CLUSTER_SIZE", I, "CGA cluster size (0-8)"},
    {"min_ctas", "minCTAs", 21700, "NCCL_MIN_CTAS", I, "minimum CTAs (channels) per collective"},
    {"max_ctas", "maxCTAs", 21700, "NCCL_MAX_CTAS", I, "maximum CTAs (channels) per collective"},
    {"net_name", "netName", 21700, "NCCL_NET", S, "network to use, e.g. IB or Socket"},
    {"split_share", "splitShare", 21800, "NCCL_COMM_SPLIT_SHARE_RESOURCES", I, "share resources with split communicators"},
    {"traffic_class", "trafficClass", 22600, "", I, "network traffic class"},
    {"comm_name", "commName", 22700, "", S, "communicator name in logs"},
    {"collnet_enable", "collnetEnable", 22700, "NCCL_COLLNET_ENABLE", I, "CollNet (SHARP) 0/1"},
    {"cta_policy", "CTAPolicy", 22700, "NCCL_CTA_POLICY", I, "CTA policy: 0 default, 1 efficiency, 2 zero"},
    {"shrink_share", "shrinkShare", 22700, "NCCL_COMM_SHRINK_SHARE_RESOURCES", I, "share resources with shrunk communicators"},
    {"nvls_ctas", "nvlsCTAs", 22700, "NCCL_NVLS_NCHANNELS", I, "CTAs of NVLS collectives"},
    {"n_channels_per_net_peer", "nChannelsPerNetPeer", 22800, "NCCL_NCHANNELS_PER_NET_PEER", I, "channels per network peer"},
    {"nvlink_centric_sched", "nvlinkCentricSched", 22800, "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", I, "NVLink-centric scheduling 0/1"},
});

}  // namespace

std::span<const ConfigField> config_fields() { return kFields; }

const ConfigField* find_config_field(std::string_view name) {
  const auto it = std::find_if(kFields.begin(), kFields.end(), [&](const ConfigField& f) { return f.name == name; });
  return it == kFields.end() ? nullptr : &*it;
}

std::vector<std::string> config_field_names() {
  std::vector<std::string> names;
  for (const auto& f : kFields) names.emplace_back(f.name);
  return names;
}

std::string nccl_version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

}  // namespace ncclsweep
