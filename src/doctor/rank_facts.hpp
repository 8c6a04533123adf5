#pragma once
// What one rank reads about itself and its machine. Each rank collects these, they
// travel to rank 0 as JSON, and the checks (checks.hpp) judge them there.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ncclsweep::doctor {

class SystemReader;

struct RankIdentity {
  int rank = 0;
  std::string host;
  int local_rank = 0;
};

// The GPU this rank would drive (local rank % visible GPUs), as CUDA and nvidia-smi see it.
struct GpuFacts {
  std::string bus_id;  // empty: no GPU visible
  std::string unavailable_reason;  // why there is no GPU, or why nvidia-smi said nothing
  std::string model, driver, performance_state;
  int sm_clock_mhz = -1, sm_clock_max_mhz = -1, mem_clock_mhz = -1, mem_clock_max_mhz = -1;
  double power_limit_w = -1, power_limit_max_w = -1;
  long long ecc_uncorrectable = -1;  // volatile (since the driver loaded), summed
  bool remapping_pending = false;
  int pcie_gen = -1, pcie_gen_max = -1, pcie_width = -1, pcie_width_max = -1;
  int nvlink_up = -1, nvlink_total = -1;
  int numa_node = -1;          // sysfs; -1 unknown or no NUMA
  std::string local_cpulist;   // sysfs
};

struct CpuFacts {
  std::map<std::string, std::vector<int>> governors;  // governor -> the rank's cores using it
  long long cur_khz_min = -1, cur_khz_max = -1;       // over the rank's cores
  long long scaling_max_khz = -1, hardware_max_khz = -1;
  std::string deepest_enabled_cstate;  // over the rank's cores; empty when unreadable
  std::string deepest_cstate;          // the deepest the kernel offers
  std::vector<std::string> disabled_cstates;
  std::string smt;  // /sys/devices/system/cpu/smt/control
};

struct RdmaPort {
  std::string device, port, state, rate;
  int numa_node = -1;
};

struct RankFacts {
  RankIdentity identity;
  std::map<std::string, std::string> environment;   // NCCL_* and CUDA_VISIBLE_DEVICES
  std::map<std::string, std::string> file_problems;  // variable -> "path: reason" for unreadable *_FILE
  std::map<std::string, std::map<std::string, std::string>> config_files;  // file -> NCCL variables it sets
  std::string nccl_library_version, nccl_header_version;  // empty without NCCL
  std::vector<int> affinity;
  std::string memory_policy;  // "default", "bind:0", "interleave:0-1", "prefer:1"
  CpuFacts cpu;
  GpuFacts gpu;
  std::vector<RdmaPort> rdma;
  std::vector<std::string> net_interfaces;
};

// Reads everything but the GPU's own state (gpu comes filled by the caller: its bus id
// and, for a full doctor run, nvidia-smi's view); adds the GPU's NUMA node and local CPUs.
RankFacts collect_rank_facts(const SystemReader& reader, const RankIdentity& identity,
                             const std::map<std::string, std::string>& environment, GpuFacts gpu);

// NCCL_* and CUDA_VISIBLE_DEVICES (plus HOME, for ~/.nccl.conf) from an envp array.
std::map<std::string, std::string> doctor_environment(char** envp);

// *_FILE variables NCCL reads (output files such as NCCL_DEBUG_FILE are left out).
bool is_input_file_variable(const std::string& name);

// NCCL config file text ("NAME=value" lines, # comments) -> its variables.
std::map<std::string, std::string> parse_nccl_conf(const std::string& text);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankIdentity, rank, host, local_rank)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuFacts, bus_id, unavailable_reason, model, driver, performance_state,
                                                sm_clock_mhz, sm_clock_max_mhz, mem_clock_mhz, mem_clock_max_mhz,
                                                power_limit_w, power_limit_max_w, ecc_uncorrectable, remapping_pending,
                                                pcie_gen, pcie_gen_max, pcie_width, pcie_width_max, nvlink_up,
                                                nvlink_total, numa_node, local_cpulist)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CpuFacts, governors, cur_khz_min, cur_khz_max, scaling_max_khz,
                                                hardware_max_khz, deepest_enabled_cstate, deepest_cstate,
                                                disabled_cstates, smt)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RdmaPort, device, port, state, rate, numa_node)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankFacts, identity, environment, file_problems, config_files,
                                                nccl_library_version, nccl_header_version, affinity, memory_policy,
                                                cpu, gpu, rdma, net_interfaces)

}  // namespace ncclsweep::doctor
