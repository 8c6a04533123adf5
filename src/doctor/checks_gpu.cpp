#include <algorithm>
#include <map>

#include "core/gpu_sharing.hpp"
#include "doctor/checks.hpp"

namespace ncclsweep::doctor {
namespace {

std::string of(int now, int max, const std::string& unit) {
  return std::to_string(now) + " of " + std::to_string(max) + unit;
}

}  // namespace

std::vector<Finding> gpu_checks(const RankFacts& facts) {
  std::vector<Finding> out;
  const GpuFacts& g = facts.gpu;
  if (g.bus_id.empty()) {
    out.push_back(rank_finding(facts, "gpu.visible", Severity::info,
                               "no GPU visible" + (g.unavailable_reason.empty() ? "" : " (" + g.unavailable_reason + ")")));
    return out;
  }
  std::string identity = (g.model.empty() ? "GPU" : g.model) + " at " + g.bus_id;
  if (!g.driver.empty()) identity += ", driver " + g.driver;
  identity += ", NUMA node " + std::to_string(g.numa_node);
  if (g.nvlink_total >= 0) identity += ", NVLink " + std::to_string(g.nvlink_up) + "/" + std::to_string(g.nvlink_total) + " links up";
  if (!g.unavailable_reason.empty()) identity += " (" + g.unavailable_reason + ")";
  out.push_back(rank_finding(facts, "gpu.identity", Severity::info, identity));

  if (g.nvlink_total > 0 && g.nvlink_up < g.nvlink_total) {
    out.push_back(rank_finding(facts, "gpu.nvlink", Severity::warning,
                               "NVLink " + std::to_string(g.nvlink_up) + " of " + std::to_string(g.nvlink_total) +
                                   " links up",
                               "check nvidia-smi nvlink -s and the fabric manager (systemctl status "
                               "nvidia-fabricmanager); a GPU reset or node drain may be needed"));
  }
  if (g.ecc_uncorrectable > 0) {
    out.push_back(rank_finding(facts, "gpu.ecc", Severity::error,
                               std::to_string(g.ecc_uncorrectable) + " uncorrectable ECC errors since the driver loaded",
                               "drain the node and have the GPU checked (nvidia-smi -q -d ECC,ROW_REMAPPER)"));
  }
  if (g.remapping_pending) {
    out.push_back(rank_finding(facts, "gpu.ecc", Severity::warning, "a memory row remapping is pending",
                               "reset the GPU (or reboot) when it is idle to apply the remapping"));
  }
  if (g.power_limit_w > 0 && g.power_limit_max_w > 0 && g.power_limit_w < g.power_limit_max_w - 0.5) {
    out.push_back(rank_finding(facts, "gpu.power_limit", Severity::warning,
                               "power limit " + std::to_string(static_cast<int>(g.power_limit_w)) + " W of " +
                                   std::to_string(static_cast<int>(g.power_limit_max_w)) + " W",
                               "restore it: nvidia-smi -i " + g.bus_id + " -pl " +
                                   std::to_string(static_cast<int>(g.power_limit_max_w)) + " (as root)"));
  }
  if (g.mem_clock_mhz > 0 && g.mem_clock_max_mhz > 0 && g.mem_clock_mhz < g.mem_clock_max_mhz) {
    out.push_back(rank_finding(facts, "gpu.clocks", Severity::warning,
                               "memory clock " + of(g.mem_clock_mhz, g.mem_clock_max_mhz, " MHz"),
                               "reset memory clock locks: nvidia-smi -i " + g.bus_id + " -rmc (as root)"));
  }
  if (g.sm_clock_mhz > 0 && g.sm_clock_max_mhz > 0) {
    out.push_back(rank_finding(facts, "gpu.clocks", Severity::info,
                               "SM clock " + of(g.sm_clock_mhz, g.sm_clock_max_mhz, " MHz") + " in " +
                                   g.performance_state + " (an idle GPU clocks down)"));
  }
  if (g.pcie_width > 0 && g.pcie_width_max > 0 && g.pcie_width < g.pcie_width_max) {
    out.push_back(rank_finding(facts, "gpu.pcie", Severity::warning,
                               "PCIe link x" + std::to_string(g.pcie_width) + " of x" + std::to_string(g.pcie_width_max),
                               "reseat the GPU or check the riser/switch; lspci -vv shows LnkSta"));
  }
  if (g.pcie_gen > 0 && g.pcie_gen_max > 0 && g.pcie_gen < g.pcie_gen_max) {
    out.push_back(rank_finding(facts, "gpu.pcie", Severity::info,
                               "PCIe gen " + of(g.pcie_gen, g.pcie_gen_max, "") +
                                   " (idle GPUs lower the link speed; under load it should reach the max)"));
  }
  return out;
}

std::vector<Finding> shared_gpu_checks(const std::vector<RankFacts>& ranks) {
  std::vector<Finding> out;
  std::vector<GpuUser> users;
  std::map<std::string, std::vector<int>> kinds;  // model + driver -> ranks
  for (const auto& r : ranks) {
    users.push_back({r.identity.rank, r.identity.host, r.gpu.bus_id});
    if (!r.gpu.bus_id.empty() && !r.gpu.model.empty()) kinds[r.gpu.model + ", driver " + r.gpu.driver].push_back(r.identity.rank);
  }
  for (const SharedGpu& shared : shared_gpus(users)) {
    out.push_back(Finding{"gpu.shared", Severity::error, shared.ranks, {shared.host}, describe_shared_gpu(shared),
                          "one rank per GPU: launch as many ranks per host as GPUs, or give each rank its own "
                          "CUDA_VISIBLE_DEVICES (srun --gpus-per-task=1)"});
  }
  if (kinds.size() > 1) {
    std::string evidence;
    for (const auto& [kind, with] : kinds) evidence += (evidence.empty() ? "" : "; ") + kind + " on ranks " + compact_ranks(with);
    std::vector<int> all;
    for (const auto& r : ranks) all.push_back(r.identity.rank);
    out.push_back(Finding{"gpu.uniform", Severity::warning, all, {}, "GPUs differ: " + evidence,
                          "run on identical nodes, or expect the slowest GPU to set the pace"});
  }
  return out;
}

}  // namespace ncclsweep::doctor
