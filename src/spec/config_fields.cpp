#include "spec/config_fields.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

using Id = ConfigFieldId;

// Versions from NCCL's nccl.h history; overrides from envConfigOverride() in 2.28.9;
// ranges from the same release's config checks (values outside fail the init or are capped).
constexpr std::array kFields = std::to_array<ConfigField>({
    {Id::blocking, "blocking", "blocking", 21400, "NCCL_COMM_BLOCKING", boolean_kind(), "0: non-blocking communicator calls",
     "ncclsweep's calls wait on blocking communicators; a non-blocking one would time calls that have not run"},
    {Id::cga_cluster_size, "cga_cluster_size", "cgaClusterSize", 21700, "NCCL_CGA_CLUSTER_SIZE", integer_kind(0, 8), "CGA cluster size (0-8)", ""},
    {Id::min_ctas, "min_ctas", "minCTAs", 21700, "NCCL_MIN_CTAS", integer_kind(1, kNcclMaxChannels), "minimum CTAs (channels) per collective", ""},
    {Id::max_ctas, "max_ctas", "maxCTAs", 21700, "NCCL_MAX_CTAS", integer_kind(1, kNcclMaxChannels), "maximum CTAs (channels) per collective", ""},
    {Id::net_name, "net_name", "netName", 21700, "NCCL_NET", text_kind(), "network to use, e.g. IB or Socket", ""},
    {Id::split_share, "split_share", "splitShare", 21800, "NCCL_COMM_SPLIT_SHARE_RESOURCES", boolean_kind(), "share resources with split communicators", ""},
    {Id::traffic_class, "traffic_class", "trafficClass", 22600, "", integer_kind(0, 255), "network traffic class", ""},
    {Id::comm_name, "comm_name", "commName", 22700, "", text_kind(), "communicator name in logs", ""},
    {Id::collnet_enable, "collnet_enable", "collnetEnable", 22700, "NCCL_COLLNET_ENABLE", boolean_kind(), "CollNet (SHARP) 0/1", ""},
    {Id::cta_policy, "cta_policy", "CTAPolicy", 22700, "NCCL_CTA_POLICY", integer_kind(0, 2), "CTA policy: 0 default, 1 efficiency, 2 zero", ""},
    {Id::shrink_share, "shrink_share", "shrinkShare", 22700, "NCCL_COMM_SHRINK_SHARE_RESOURCES", boolean_kind(), "share resources with shrunk communicators", ""},
    {Id::nvls_ctas, "nvls_ctas", "nvlsCTAs", 22700, "NCCL_NVLS_NCHANNELS", integer_kind(1, kNcclMaxChannels), "CTAs of NVLS collectives", ""},
    {Id::n_channels_per_net_peer, "n_channels_per_net_peer", "nChannelsPerNetPeer", 22800, "NCCL_NCHANNELS_PER_NET_PEER", integer_kind(1, kNcclMaxChannels), "channels per network peer", ""},
    {Id::nvlink_centric_sched, "nvlink_centric_sched", "nvlinkCentricSched", 22800, "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", boolean_kind(), "NVLink-centric scheduling 0/1", ""},
});

std::string sweepable_list() {
  std::string text;
  for (const std::string& name : sweepable_config_field_names()) text += (text.empty() ? "" : ", ") + name;
  return text;
}

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

std::vector<std::string> sweepable_config_field_names() {
  std::vector<std::string> names;
  for (const auto& f : kFields) {
    if (f.not_sweepable.empty()) names.emplace_back(f.name);
  }
  return names;
}

std::string_view ConfigSetting::name() const { return field ? field->name : std::string_view("?"); }

ConfigSetting config_setting(std::string_view name, const std::string& value) {
  ConfigSetting setting;
  setting.field = find_config_field(name);
  if (!setting.field || !setting.field->not_sweepable.empty()) {
    throw UsageError("config field '" + std::string(name) + "' cannot be swept",
                     setting.field ? std::string(setting.field->not_sweepable) : "use one of " + sweepable_list());
  }
  setting.value = value;
  if (setting.field->value.syntax != ValueSyntax::text) {
    const auto number = parse_whole_number(value);
    if (!number || *number < std::numeric_limits<int>::min() || *number > std::numeric_limits<int>::max()) {
      throw UsageError("config field " + std::string(name) + " takes a whole number, not '" + value + "'",
                       "give a decimal number (or 0x hexadecimal) that fits an int");
    }
    setting.number = static_cast<int>(*number);
  }
  return setting;
}

}  // namespace ncclsweep
