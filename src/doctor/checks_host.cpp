#include <algorithm>
#include <map>
#include <sstream>

#include "doctor/checks.hpp"
#include "core/list_text.hpp"
#include "doctor/system_reader.hpp"

namespace ncclsweep::doctor {
namespace {

std::vector<int> difference(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<int> intersection(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string mhz(long long khz) { return std::to_string(khz / 1000) + " MHz"; }

// NCCL's interface and HCA lists: "^a,b" excludes, "=a" matches exactly, else prefixes.
struct NameFilter {
  bool exclude = false, exact = false;
  std::vector<std::string> names;  // without ":port" suffixes
};

NameFilter parse_filter(std::string text) {
  NameFilter filter;
  if (!text.empty() && text[0] == '^') filter.exclude = true, text.erase(0, 1);
  if (!text.empty() && text[0] == '=') filter.exact = true, text.erase(0, 1);
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    part = part.substr(0, part.find(':'));
    if (!part.empty()) filter.names.push_back(part);
  }
  return filter;
}

bool matches(const NameFilter& filter, const std::string& wanted, const std::string& existing) {
  return filter.exact ? existing == wanted : existing.rfind(wanted, 0) == 0;
}

std::string joined(const std::vector<std::string>& names) { return names.empty() ? "none" : join_text(names, " "); }

}  // namespace

std::vector<Finding> placement_checks(const RankFacts& facts) {
  std::vector<Finding> out;
  const std::string policy = facts.memory_policy.empty() ? "unknown" : facts.memory_policy;
  if (facts.affinity.empty()) {
    out.push_back(rank_finding(facts, "placement.affinity", Severity::info, "CPU affinity unreadable"));
    return out;
  }
  const std::string cores = "cores " + format_cpu_list(facts.affinity);
  const GpuFacts& gpu = facts.gpu;
  const std::vector<int> local = parse_cpu_list(gpu.local_cpulist);
  const std::string fix = "bind each rank to its GPU's NUMA node: mpirun --map-by ppr:N:numa --bind-to numa (or "
                          "--bind-to core), srun --cpu-bind=..., or numactl --cpunodebind=" +
                          std::to_string(std::max(gpu.numa_node, 0)) + " --membind=" +
                          std::to_string(std::max(gpu.numa_node, 0));
  if (gpu.bus_id.empty() || local.empty()) {
    out.push_back(rank_finding(facts, "placement.affinity", Severity::info,
                               cores + ", memory policy " + policy +
                                   (gpu.bus_id.empty() ? "" : "; GPU " + gpu.bus_id + " has no local CPU list")));
  } else {
    const std::vector<int> away = difference(facts.affinity, local);
    const std::string where = "GPU " + gpu.bus_id + " is on NUMA node " + std::to_string(gpu.numa_node) +
                              ", local CPUs " + format_cpu_list(local);
    if (away.empty()) {
      out.push_back(rank_finding(facts, "placement.affinity", Severity::info,
                                 cores + ", all local to its GPU (" + where + "), memory policy " + policy));
    } else {
      out.push_back(rank_finding(facts, "placement.affinity", Severity::warning,
                                 cores + ": " + std::to_string(away.size()) + " of " +
                                     std::to_string(facts.affinity.size()) + " are not local to its GPU (" + where +
                                     ")",
                                 fix));
    }
  }
  // "bind:1", "prefer:1", "interleave:0-1", "prefer (many):0-1"; default/local follow the CPU.
  const std::size_t colon = facts.memory_policy.find(':');
  if (colon != std::string::npos && gpu.numa_node >= 0) {
    const auto nodes = parse_cpu_list(facts.memory_policy.substr(colon + 1));
    if (std::find(nodes.begin(), nodes.end(), gpu.numa_node) == nodes.end()) {
      out.push_back(rank_finding(facts, "placement.memory", Severity::warning,
                                 "memory policy " + facts.memory_policy + " excludes the GPU's NUMA node " +
                                     std::to_string(gpu.numa_node),
                                 fix));
    }
  }
  return out;
}

std::vector<Finding> shared_core_checks(const std::vector<RankFacts>& ranks) {
  // One finding per host: every rank there whose cores overlap another's, and the
  // first overlapping pair as an example.
  std::vector<Finding> out;
  std::map<std::string, std::vector<const RankFacts*>> by_host;
  for (const auto& r : ranks) by_host[r.identity.host].push_back(&r);
  for (const auto& [host, local] : by_host) {
    std::vector<int> involved;
    std::string example;
    int pairs = 0;
    for (std::size_t i = 0; i < local.size(); ++i) {
      for (std::size_t j = i + 1; j < local.size(); ++j) {
        const auto shared = intersection(local[i]->affinity, local[j]->affinity);
        if (shared.empty()) continue;
        ++pairs;
        for (int r : {local[i]->identity.rank, local[j]->identity.rank}) {
          if (std::find(involved.begin(), involved.end(), r) == involved.end()) involved.push_back(r);
        }
        if (example.empty()) {
          example = "ranks " + std::to_string(local[i]->identity.rank) + " and " +
                    std::to_string(local[j]->identity.rank) + " share cores " + format_cpu_list(shared);
        }
      }
    }
    if (pairs == 0) continue;
    std::sort(involved.begin(), involved.end());
    out.push_back(Finding{"placement.shared_cores", Severity::warning, involved, {host},
                          std::to_string(pairs) + " pair(s) of ranks may run on the same cores, e.g. " + example,
                          "give each rank its own cores: mpirun --bind-to core --map-by ppr:N:numa:PE=K, "
                          "srun --cpu-bind=cores"});
  }
  return out;
}

std::vector<Finding> cpu_checks(const RankFacts& facts) {
  std::vector<Finding> out;
  const CpuFacts& cpu = facts.cpu;
  if (cpu.governors.empty()) {
    out.push_back(rank_finding(facts, "cpu.frequency", Severity::info,
                               "cpufreq not readable for the rank's cores (a VM or a container without /sys)"));
  } else {
    std::string slow;
    for (const auto& [governor, cores] : cpu.governors) {
      if (governor != "performance") slow += (slow.empty() ? "" : "; ") + governor + " on cores " + format_cpu_list(cores);
    }
    std::string freq = cpu.cur_khz_max >= 0 ? mhz(cpu.cur_khz_min) + " to " + mhz(cpu.cur_khz_max) + " now" : "";
    if (cpu.hardware_max_khz > 0) freq += (freq.empty() ? "" : ", ") + std::string("hardware max ") + mhz(cpu.hardware_max_khz);
    if (!slow.empty()) {
      out.push_back(rank_finding(facts, "cpu.governor", Severity::warning, "governor " + slow + " (" + freq + ")",
                                 "set the performance governor on the job's cores: cpupower frequency-set -g "
                                 "performance (or the cluster's job prolog)"));
    } else {
      out.push_back(rank_finding(facts, "cpu.frequency", Severity::info, "governor performance; " + freq));
    }
    if (cpu.scaling_max_khz > 0 && cpu.hardware_max_khz > 0 && cpu.scaling_max_khz < cpu.hardware_max_khz) {
      out.push_back(rank_finding(facts, "cpu.frequency_cap", Severity::warning,
                                 "cores capped at " + mhz(cpu.scaling_max_khz) + " of " + mhz(cpu.hardware_max_khz),
                                 "raise scaling_max_freq: cpupower frequency-set -u " + mhz(cpu.hardware_max_khz)));
    }
  }
  if (!cpu.deepest_cstate.empty()) {
    if (cpu.deepest_enabled_cstate != cpu.deepest_cstate) {
      std::string disabled;
      for (const auto& s : cpu.disabled_cstates) disabled += (disabled.empty() ? "" : " ") + s;
      out.push_back(rank_finding(facts, "cpu.cstates", Severity::warning,
                                 "deepest enabled C-state " +
                                     (cpu.deepest_enabled_cstate.empty() ? "none" : cpu.deepest_enabled_cstate) +
                                     " of " + cpu.deepest_cstate + " (disabled: " + disabled +
                                     "): idle cores cannot give busy cores turbo headroom",
                                 "enable the deeper C-states (cpupower idle-set -E; drop intel_idle.max_cstate / "
                                 "processor.max_cstate from the kernel command line) unless latency needs them off"));
    } else {
      out.push_back(rank_finding(facts, "cpu.cstates", Severity::info,
                                 "deepest enabled C-state " + cpu.deepest_enabled_cstate));
    }
  }
  if (!cpu.smt.empty()) out.push_back(rank_finding(facts, "cpu.smt", Severity::info, "SMT " + cpu.smt));
  return out;
}

std::vector<Finding> network_checks(const RankFacts& facts) {
  std::vector<Finding> out;
  std::vector<std::string> devices;
  for (const auto& p : facts.rdma) {
    if (std::find(devices.begin(), devices.end(), p.device) == devices.end()) devices.push_back(p.device);
    const std::string port = p.device + " port " + p.port + ": " + p.state + ", " + p.rate + ", NUMA node " +
                             std::to_string(p.numa_node) + " (GPU's: " + std::to_string(facts.gpu.numa_node) + ")";
    if (p.state.find("ACTIVE") == std::string::npos) {
      out.push_back(rank_finding(facts, "network.rdma", Severity::warning, port,
                                 "check the cable and the switch port (ibstat), or leave the device out with "
                                 "NCCL_IB_HCA"));
    } else {
      out.push_back(rank_finding(facts, "network.rdma", Severity::info, port));
    }
  }
  if (facts.rdma.empty()) {
    out.push_back(rank_finding(facts, "network.rdma", Severity::info,
                               "no RDMA devices (/sys/class/infiniband empty): NCCL uses sockets between hosts"));
  }
  if (const auto it = facts.environment.find("NCCL_IB_HCA"); it != facts.environment.end()) {
    const NameFilter filter = parse_filter(it->second);
    for (const auto& wanted : filter.names) {
      const bool found = std::any_of(devices.begin(), devices.end(),
                                     [&](const std::string& d) { return matches(filter, wanted, d); });
      if (!found && !filter.exclude) {
        out.push_back(rank_finding(facts, "network.ib_hca", Severity::error,
                                   "NCCL_IB_HCA=" + it->second + " names " + wanted +
                                       ", which is not an RDMA device here (devices: " + joined(devices) + ")",
                                   "name devices listed in /sys/class/infiniband (ibv_devices), or unset NCCL_IB_HCA"));
      }
    }
  }
  if (const auto it = facts.environment.find("NCCL_SOCKET_IFNAME"); it != facts.environment.end()) {
    const NameFilter filter = parse_filter(it->second);
    const bool any = std::any_of(filter.names.begin(), filter.names.end(), [&](const std::string& wanted) {
      return std::any_of(facts.net_interfaces.begin(), facts.net_interfaces.end(),
                         [&](const std::string& i) { return matches(filter, wanted, i); });
    });
    if (!any && !filter.exclude) {
      out.push_back(rank_finding(facts, "network.socket_ifname", Severity::error,
                                 "NCCL_SOCKET_IFNAME=" + it->second + " matches no interface here (interfaces: " +
                                     joined(facts.net_interfaces) + ")",
                                 "name an interface from ip -br link (a prefix works: eth, ib), or unset "
                                 "NCCL_SOCKET_IFNAME"));
    }
  }
  return out;
}

}  // namespace ncclsweep::doctor
