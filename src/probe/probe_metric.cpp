#include "probe/probe_metric.hpp"

#include <array>

namespace ncclsweep::probe {
namespace {

constexpr std::string_view kShared =
    "the rank's core is shared (another busy thread or process on it, or the hypervisor taking it): check what "
    "else runs on the rank's cores (top -H, the launcher's --bind-to, isolcpus) while its clock matches";
constexpr std::string_view kClock =
    "busy cores run below the other hosts' clock: check the BIOS power profile and C-states (idle cores kept in C1 "
    "take the package power from busy ones), the cpufreq governor and the package power limit";
constexpr std::string_view kStalls =
    "threads on the rank's cores stop for milliseconds: they share cores with housekeeping (hypervisor, IRQ or "
    "daemon threads): keep them off the job's cores (isolcpus / nohz_full, irqaffinity, the VM's vCPU pinning)";
constexpr std::string_view kMap =
    "mapping and unmapping memory costs more than on the other hosts: in a VM every map traps to the host's "
    "IOMMU/SMMU command queue: check IOMMU passthrough, SMMU command-queue virtualisation (VCMDQ) and hugepages";
constexpr std::string_view kNuma =
    "memory is reached across NUMA nodes: bind the rank's memory with its cores (numactl --localalloc or "
    "--membind, the launcher's --bind-to and --map-by) and check the NUMA-per-socket BIOS setting";
constexpr std::string_view kMemoryBandwidth =
    "copies from the rank's cores to memory run slower than on the other hosts (one NUMA node, so not placement): "
    "check what else uses memory bandwidth there, the memory clock and how many channels hold DIMMs "
    "(dmidecode -t memory)";
constexpr std::string_view kLaunch =
    "the host time per tiny GPU operation is high while the single-thread clock matches: check IOMMU/SMMU "
    "passthrough and command-queue virtualisation (VCMDQ) in the VM, and what shares the rank's core";
constexpr std::string_view kGpuLoad =
    "the GPU runs slower under load: check its clocks and throttle reasons (nvidia-smi -q -d PERFORMANCE), cooling, "
    "the power limit (nvidia-smi -q -d POWER) and application clocks";
constexpr std::string_view kPcie =
    "the GPU's PCIe link trained below its maximum under load: reseat the GPU or riser, check the slot's BIOS "
    "link speed, and nvidia-smi -q -d PCIE";

// metric, probe, unit, better, tolerance, floor, cause
constexpr std::array<MetricInfo, 30> kMetrics = {{
    {ProbeMetric::busy_clock_ghz, "core_clock", "GHz", Better::higher, 0.15, 0.2, kClock},
    {ProbeMetric::busy_effective_ghz, "core_clock", "GHz", Better::higher, 0.50, 0.1, kShared},
    {ProbeMetric::all_cores_clock_ghz, "core_clock", "GHz", Better::higher, 0.15, 0.2, kClock},
    {ProbeMetric::all_cores_effective_ghz, "core_clock", "GHz", Better::higher, 0.50, 0.1, kShared},
    {ProbeMetric::stall_max_ms, "stalls", "ms", Better::lower, 2.0, 20, kStalls},
    {ProbeMetric::stalls_over_1ms_per_s, "stalls", "1/s", Better::lower, 2.0, 20, kStalls},
    {ProbeMetric::stalls_over_10ms_per_s, "stalls", "1/s", Better::lower, 2.0, 2, kStalls},
    {ProbeMetric::host_mmap_64mib_us, "map_unmap", "us", Better::lower, 1.0, 500, kMap},
    {ProbeMetric::numa_local_copy_gbps, "numa", "GB/s", Better::higher, 0.50, 1, kNuma},
    {ProbeMetric::numa_remote_copy_gbps, "numa", "GB/s", Better::higher, 0.50, 1, kNuma},
    {ProbeMetric::memory_on_local_node, "numa", "share", Better::higher, 0.10, 0.1, kNuma},
    {ProbeMetric::kernel_launch_us, "small_gpu_work", "us", Better::lower, 0.50, 1, kLaunch},
    {ProbeMetric::graph_launch_us, "small_gpu_work", "us", Better::lower, 0.50, 1, kLaunch},
    {ProbeMetric::kernel_chain_us, "small_gpu_work", "us", Better::lower, 0.50, 1, kLaunch},
    {ProbeMetric::nccl_tiny_enqueue_us, "small_gpu_work", "us", Better::lower, 0.50, 1, kLaunch},
    {ProbeMetric::cuda_malloc_free_2mib_us, "gpu_map_unmap", "us", Better::lower, 0.50, 20, kMap},
    {ProbeMetric::cuda_malloc_free_256mib_us, "gpu_map_unmap", "us", Better::lower, 0.50, 50, kMap},
    {ProbeMetric::cuda_host_alloc_free_64mib_us, "gpu_map_unmap", "us", Better::lower, 0.50, 100, kMap},
    {ProbeMetric::cuda_host_register_64mib_us, "gpu_map_unmap", "us", Better::lower, 0.50, 100, kMap},
    {ProbeMetric::nccl_mem_register_us, "gpu_map_unmap", "us", Better::lower, 0.50, 50, kMap},
    {ProbeMetric::h2d_pinned_gbps, "gpu_load", "GB/s", Better::higher, 0.15, 1, kPcie},
    {ProbeMetric::d2h_pinned_gbps, "gpu_load", "GB/s", Better::higher, 0.15, 1, kPcie},
    {ProbeMetric::hbm_copy_gbps, "gpu_load", "GB/s", Better::higher, 0.10, 50, kGpuLoad},
    {ProbeMetric::gemm_bf16_tflops, "gpu_load", "TFLOP/s", Better::higher, 0.08, 10, kGpuLoad},
    {ProbeMetric::gpu_sm_clock_under_load_mhz, "gpu_load", "MHz", Better::higher, 0.08, 50, kGpuLoad},
    {ProbeMetric::gpu_power_under_load_w, "gpu_load", "W", Better::higher, 0.25, 50, kGpuLoad},
    {ProbeMetric::gpu_temperature_under_load_c, "gpu_load", "C", Better::lower, 0.15, 8, kGpuLoad},
    {ProbeMetric::gpu_throttled_under_load, "gpu_load", "flag", Better::lower, 0, 0.5, kGpuLoad},
    {ProbeMetric::pcie_link_gen_ratio, "gpu_load", "share", Better::higher, 0, 0.01, kPcie},
    {ProbeMetric::pcie_link_width_ratio, "gpu_load", "share", Better::higher, 0, 0.01, kPcie},
}};

}  // namespace

std::string_view memory_bandwidth_cause() { return kMemoryBandwidth; }

const MetricInfo& metric_info(ProbeMetric metric) {
  for (const auto& info : kMetrics) {
    if (info.metric == metric) return info;
  }
  return kMetrics.front();  // not reached: every enum value has a row (checked by a unit test)
}

}  // namespace ncclsweep::probe
