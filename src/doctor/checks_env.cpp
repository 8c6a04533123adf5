#include <algorithm>
#include <map>
#include <set>

#include "doctor/checks.hpp"

namespace ncclsweep::doctor {

Finding rank_finding(const RankFacts& facts, std::string check, Severity severity, std::string evidence,
                     std::string fix) {
  return Finding{std::move(check), severity, {facts.identity.rank}, {facts.identity.host}, std::move(evidence),
                 std::move(fix)};
}

namespace {

// value -> ranks holding it, for one property of every rank.
template <typename Get>
std::map<std::string, std::vector<int>> group_ranks(const std::vector<RankFacts>& ranks, Get get) {
  std::map<std::string, std::vector<int>> groups;
  for (const auto& r : ranks) groups[get(r)].push_back(r.identity.rank);
  return groups;
}

// The ranks outside the largest group (ties: the group holding the lowest rank wins).
std::vector<int> odd_ranks(const std::map<std::string, std::vector<int>>& groups) {
  const std::vector<int>* majority = nullptr;
  for (const auto& [value, ranks] : groups) {
    if (!majority || ranks.size() > majority->size() ||
        (ranks.size() == majority->size() && ranks.front() < majority->front())) {
      majority = &ranks;
    }
  }
  std::vector<int> odd;
  for (const auto& [value, ranks] : groups) {
    if (&ranks != majority) odd.insert(odd.end(), ranks.begin(), ranks.end());
  }
  std::sort(odd.begin(), odd.end());
  return odd;
}

std::string describe_groups(const std::map<std::string, std::vector<int>>& groups) {
  std::string out;
  for (const auto& [value, ranks] : groups) {
    out += (out.empty() ? "" : "; ") + value + " on ranks " + compact_ranks(ranks);
  }
  return out;
}

std::vector<std::string> hosts_of(const std::vector<RankFacts>& all, const std::vector<int>& ranks) {
  std::vector<std::string> hosts;
  for (const auto& r : all) {
    if (std::find(ranks.begin(), ranks.end(), r.identity.rank) == ranks.end()) continue;
    if (std::find(hosts.begin(), hosts.end(), r.identity.host) == hosts.end()) hosts.push_back(r.identity.host);
  }
  return hosts;
}

}  // namespace

std::vector<Finding> environment_checks(const RankFacts& facts) {
  std::vector<Finding> out;
  for (const auto& [name, problem] : facts.file_problems) {
    out.push_back(rank_finding(facts, "env.file", Severity::error,
                               name + "=" + problem + " (NCCL ignores it and carries on without it)",
                               "make the file visible inside the job on every rank (mount it into the container, "
                               "use a shared path), or unset " + name));
  }
  for (const auto& [file, vars] : facts.config_files) {
    std::string set, hidden;
    for (const auto& [name, value] : vars) {
      set += (set.empty() ? "" : ", ") + name + "=" + value;
      if (!facts.environment.count(name)) hidden += (hidden.empty() ? "" : ", ") + name;
    }
    if (hidden.empty()) {
      out.push_back(rank_finding(facts, "env.config_file", Severity::info,
                                 file + " sets " + set + " (the environment overrides all of them)"));
    } else {
      out.push_back(rank_finding(facts, "env.config_file", Severity::warning,
                                 file + " sets " + set + "; in effect and not in the environment: " + hidden,
                                 "move these settings into the launch environment, where they are visible and "
                                 "recorded, or remove them from " + file));
    }
  }
  if (!facts.nccl_library_version.empty() && facts.nccl_library_version != facts.nccl_header_version) {
    out.push_back(rank_finding(facts, "env.nccl_version", Severity::warning,
                               "libnccl " + facts.nccl_library_version + " loaded; ncclsweep was built with nccl.h " +
                                   facts.nccl_header_version,
                               "point LD_LIBRARY_PATH at the NCCL ncclsweep was built with, or rebuild with "
                               "NCCL_HOME set to the one loaded"));
  }
  return out;
}

std::vector<Finding> uniformity_checks(const std::vector<RankFacts>& ranks) {
  std::vector<Finding> out;
  std::set<std::string> names;
  for (const auto& r : ranks) {
    for (const auto& [name, value] : r.environment) {
      if (name.rfind("NCCL_", 0) == 0) names.insert(name);
    }
  }
  for (const auto& name : names) {
    const auto groups = group_ranks(ranks, [&](const RankFacts& r) {
      const auto it = r.environment.find(name);
      return it == r.environment.end() ? std::string("(unset)") : "'" + it->second + "'";
    });
    if (groups.size() < 2) continue;
    const auto odd = odd_ranks(groups);
    out.push_back(Finding{"env.uniform", Severity::error, odd, hosts_of(ranks, odd),
                          name + " differs across ranks: " + describe_groups(groups),
                          "give every rank the same " + name + " (mpirun -x " + name + "=..., srun --export)"});
  }
  const auto versions = group_ranks(ranks, [](const RankFacts& r) {
    return r.nccl_library_version.empty() ? std::string("(none)") : r.nccl_library_version;
  });
  if (versions.size() > 1) {
    const auto odd = odd_ranks(versions);
    out.push_back(Finding{"env.nccl_version", Severity::error, odd, hosts_of(ranks, odd),
                          "libnccl versions differ across ranks: " + describe_groups(versions),
                          "load one NCCL on every host (same container image, same LD_LIBRARY_PATH)"});
  }
  return out;
}

std::vector<Finding> evaluate(const std::vector<RankFacts>& ranks) {
  std::vector<Finding> all;
  const auto add = [&all](std::vector<Finding> more) {
    all.insert(all.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  for (const auto& r : ranks) {
    add(environment_checks(r));
    add(placement_checks(r));
    add(cpu_checks(r));
    add(gpu_checks(r));
    add(network_checks(r));
  }
  add(uniformity_checks(ranks));
  add(shared_core_checks(ranks));
  add(shared_gpu_checks(ranks));
  return merge_findings(std::move(all));
}

}  // namespace ncclsweep::doctor
