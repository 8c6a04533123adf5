#include "core/gpu_sharing.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/finding.hpp"

namespace ncclsweep {

std::vector<SharedGpu> shared_gpus(const std::vector<GpuUser>& users) {
  std::map<std::pair<std::string, std::string>, std::vector<int>> by_gpu;
  for (const auto& u : users) {
    if (!u.bus_id.empty()) by_gpu[{u.host, u.bus_id}].push_back(u.rank);
  }
  std::vector<SharedGpu> out;
  for (auto& [where, ranks] : by_gpu) {
    if (ranks.size() < 2) continue;
    std::sort(ranks.begin(), ranks.end());
    out.push_back({where.first, where.second, ranks});
  }
  return out;
}

std::string describe_shared_gpu(const SharedGpu& shared) {
  const std::string who = shared.ranks.size() == 2
                              ? std::to_string(shared.ranks[0]) + " and " + std::to_string(shared.ranks[1])
                              : doctor::compact_ranks(shared.ranks);
  return "ranks " + who + " on " + shared.host + (shared.ranks.size() == 2 ? " both" : " all") + " drive GPU " +
         shared.bus_id;
}

}  // namespace ncclsweep
