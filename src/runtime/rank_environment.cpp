#include "runtime/rank_environment.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/environment.hpp"
#include "core/gpu_sharing.hpp"
#include "results/record_json.hpp"
#include "transport/rank_group.hpp"

namespace ncclsweep {

std::map<std::string, std::string> captured_environment(char** envp) {
  return environment_with_prefixes(
      envp, {"NCCL_", "OMPI_COMM_WORLD_", "PMIX_RANK", "PMI_", "SLURM_", "CUDA_VISIBLE_DEVICES"});
}

std::vector<RankEntry> gather_rank_entries(RankGroup& session, const DeviceDescription& device, char** envp) {
  RankEntry mine;
  mine.rank = session.rank();
  mine.host = session.host();
  mine.local_rank = session.local_rank();
  mine.gpu_index = device.gpu_index;
  mine.gpu_name = device.gpu_name;
  mine.pci_bus_id = device.pci_bus_id;
  mine.environment = captured_environment(envp);
  const std::vector<std::string> all = session.gather(nlohmann::json(mine).dump());
  std::vector<RankEntry> entries;
  entries.reserve(all.size());
  for (const auto& text : all) entries.push_back(nlohmann::json::parse(text).get<RankEntry>());
  return entries;
}

std::vector<std::string> shared_gpu_conflicts(const std::vector<RankEntry>& ranks) {
  std::vector<GpuUser> users;
  for (const auto& r : ranks) users.push_back({r.rank, r.host, r.gpu_index >= 0 ? r.pci_bus_id : std::string()});
  std::vector<std::string> conflicts;
  for (const auto& shared : shared_gpus(users)) conflicts.push_back(describe_shared_gpu(shared));
  return conflicts;
}

std::vector<std::string> distinct_hosts(const std::vector<RankEntry>& ranks) {
  std::vector<std::string> hosts;
  for (const auto& r : ranks) {
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  }
  return hosts;
}

}  // namespace ncclsweep
