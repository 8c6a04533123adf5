#pragma once
// What `ncclsweep probe` measures: one enum value per figure, and one table that says
// for each its name in files, its unit, which way is better, how far a host may sit
// from the others (or from the reference) before it is named, and the likely cause and
// the check to make when it is (docs/probe.md).
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep::probe {

enum class ProbeMetric {
  // busy-core clock (the dependent add chain): case 2, CPU power and placement
  busy_clock_ghz,           // one core, adds per ns of the thread's CPU time: the core's clock
  busy_effective_ghz,       // one core, adds per wall ns: what a busy thread really got
  all_cores_clock_ghz,      // every core of the rank at once, the slowest core's clock
  all_cores_effective_ghz,  // every core at once, the slowest core's wall rate
  // scheduling stalls (a clock read in a loop): case 2
  stall_max_ms,
  stalls_over_1ms_per_s,
  stalls_over_10ms_per_s,
  // map/unmap: case 1, virtualisation and SMMU
  host_mmap_64mib_us,
  // NUMA: case 2
  numa_local_copy_gbps,
  numa_remote_copy_gbps,  // the slowest remote node
  memory_on_local_node,   // 1: default-policy memory lands on the cores' node; 0: elsewhere
  // host cost of small GPU work: case 1
  kernel_launch_us,
  graph_launch_us,
  kernel_chain_us,  // per kernel of a chain of dependent empty kernels, end to end
  nccl_tiny_enqueue_us,
  // GPU map/unmap: case 1
  cuda_malloc_free_2mib_us,
  cuda_malloc_free_256mib_us,
  cuda_host_alloc_free_64mib_us,
  cuda_host_register_64mib_us,
  nccl_mem_register_us,
  // GPU under load: the preflight table's clocks, power and thermals
  h2d_pinned_gbps,
  d2h_pinned_gbps,
  hbm_copy_gbps,
  gemm_bf16_tflops,
  gpu_sm_clock_under_load_mhz,
  gpu_power_under_load_w,
  gpu_temperature_under_load_c,
  gpu_throttled_under_load,  // 1 when a reason that slows work was set during the GEMM
  pcie_link_gen_ratio,       // current / max link generation under load
  pcie_link_width_ratio,
};

enum class Better { higher, lower };

struct MetricInfo {
  ProbeMetric metric;
  std::string_view probe;  // the probe that measures it: "core_clock", "stalls", ...
  std::string_view unit;
  Better better;
  // A host is named when it is worse than the other hosts' median (or the reference) by more
  // than both of these: the relative share and the absolute floor (in the unit).
  double tolerance;
  double floor;
  std::string_view cause;  // the likely cause and the check to make, for a finding
};

inline constexpr NameTable<ProbeMetric, 30> kProbeMetricNames{"probe metric", {{
    {ProbeMetric::busy_clock_ghz, "busy_clock_ghz"},
    {ProbeMetric::busy_effective_ghz, "busy_effective_ghz"},
    {ProbeMetric::all_cores_clock_ghz, "all_cores_clock_ghz"},
    {ProbeMetric::all_cores_effective_ghz, "all_cores_effective_ghz"},
    {ProbeMetric::stall_max_ms, "stall_max_ms"},
    {ProbeMetric::stalls_over_1ms_per_s, "stalls_over_1ms_per_s"},
    {ProbeMetric::stalls_over_10ms_per_s, "stalls_over_10ms_per_s"},
    {ProbeMetric::host_mmap_64mib_us, "host_mmap_64mib_us"},
    {ProbeMetric::numa_local_copy_gbps, "numa_local_copy_gbps"},
    {ProbeMetric::numa_remote_copy_gbps, "numa_remote_copy_gbps"},
    {ProbeMetric::memory_on_local_node, "memory_on_local_node"},
    {ProbeMetric::kernel_launch_us, "kernel_launch_us"},
    {ProbeMetric::graph_launch_us, "graph_launch_us"},
    {ProbeMetric::kernel_chain_us, "kernel_chain_us"},
    {ProbeMetric::nccl_tiny_enqueue_us, "nccl_tiny_enqueue_us"},
    {ProbeMetric::cuda_malloc_free_2mib_us, "cuda_malloc_free_2mib_us"},
    {ProbeMetric::cuda_malloc_free_256mib_us, "cuda_malloc_free_256mib_us"},
    {ProbeMetric::cuda_host_alloc_free_64mib_us, "cuda_host_alloc_free_64mib_us"},
    {ProbeMetric::cuda_host_register_64mib_us, "cuda_host_register_64mib_us"},
    {ProbeMetric::nccl_mem_register_us, "nccl_mem_register_us"},
    {ProbeMetric::h2d_pinned_gbps, "h2d_pinned_gbps"},
    {ProbeMetric::d2h_pinned_gbps, "d2h_pinned_gbps"},
    {ProbeMetric::hbm_copy_gbps, "hbm_copy_gbps"},
    {ProbeMetric::gemm_bf16_tflops, "gemm_bf16_tflops"},
    {ProbeMetric::gpu_sm_clock_under_load_mhz, "gpu_sm_clock_under_load_mhz"},
    {ProbeMetric::gpu_power_under_load_w, "gpu_power_under_load_w"},
    {ProbeMetric::gpu_temperature_under_load_c, "gpu_temperature_under_load_c"},
    {ProbeMetric::gpu_throttled_under_load, "gpu_throttled_under_load"},
    {ProbeMetric::pcie_link_gen_ratio, "pcie_link_gen_ratio"},
    {ProbeMetric::pcie_link_width_ratio, "pcie_link_width_ratio"},
}}};

const MetricInfo& metric_info(ProbeMetric metric);

// Why numa_remote_copy_gbps is skipped on a machine with one NUMA node: a host whose
// records say so gets no NUMA cause (its local copy is then plain memory bandwidth).
inline constexpr std::string_view kOneNumaNode = "one NUMA node: nothing is remote";
// The cause for numa_local_copy_gbps on such a host.
std::string_view memory_bandwidth_cause();

}  // namespace ncclsweep::probe
