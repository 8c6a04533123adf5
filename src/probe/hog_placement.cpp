#include "probe/hog_placement.hpp"

#include <algorithm>
#include <fstream>

#include "doctor/system_reader.hpp"
#include "probe/cpu_probes.hpp"

namespace ncclsweep::probe {

RankPlacement this_rank_placement(int rank, const std::string& host) {
  RankPlacement p;
  p.rank = rank;
  p.host = host;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, p.machine);
  p.cpus = allowed_cpus();
  return p;
}

HogRefusal cpu_hog_refusal(const std::vector<RankPlacement>& ranks, int hogged) {
  const auto target = std::find_if(ranks.begin(), ranks.end(), [&](const RankPlacement& p) { return p.rank == hogged; });
  if (target == ranks.end()) {
    return {"--inject-fault names rank " + std::to_string(hogged) + " of a launch of " + std::to_string(ranks.size()) +
                " rank(s): the hog would slow nothing",
            "name a rank from 0 to " + std::to_string(static_cast<int>(ranks.size()) - 1)};
  }
  for (const RankPlacement& other : ranks) {
    if (other.host == target->host || other.machine != target->machine) continue;
    std::vector<int> shared;
    std::set_intersection(target->cpus.begin(), target->cpus.end(), other.cpus.begin(), other.cpus.end(),
                          std::back_inserter(shared));
    if (shared.empty()) continue;
    return {"--inject-fault " + std::to_string(hogged) + ":cpu-hog cannot slow host " + target->host +
                " alone: rank " + std::to_string(hogged) + " may run on cores " + doctor::format_cpu_list(target->cpus) +
                ", and rank " + std::to_string(other.rank) + " of host " + other.host +
                " on the same machine may run on " + doctor::format_cpu_list(shared) +
                " of them, so the hog would slow both hosts (an unbound rank moves to a core the hog leaves it)",
            "bind each rank to cores of its own (mpirun --bind-to core, srun --cpu-bind=cores), or leave the aid out and "
            "limit the host from outside (a cgroup CPU quota on its ranks: docs/probe.md)"};
  }
  return {};
}

}  // namespace ncclsweep::probe
