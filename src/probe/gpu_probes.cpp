#include "probe/gpu_probes.hpp"

#include "doctor/gpu_module.hpp"

namespace ncclsweep::probe {

namespace {
constexpr ProbeMetric kGpuMetrics[] = {
    ProbeMetric::kernel_launch_us, ProbeMetric::graph_launch_us, ProbeMetric::kernel_chain_us,
    ProbeMetric::nccl_tiny_enqueue_us, ProbeMetric::cuda_malloc_free_2mib_us, ProbeMetric::cuda_malloc_free_256mib_us,
    ProbeMetric::cuda_host_alloc_free_64mib_us, ProbeMetric::cuda_host_register_64mib_us,
    ProbeMetric::nccl_mem_register_us, ProbeMetric::h2d_pinned_gbps, ProbeMetric::d2h_pinned_gbps,
    ProbeMetric::hbm_copy_gbps, ProbeMetric::gemm_bf16_tflops, ProbeMetric::gpu_sm_clock_under_load_mhz,
    ProbeMetric::gpu_power_under_load_w, ProbeMetric::gpu_temperature_under_load_c,
    ProbeMetric::gpu_throttled_under_load, ProbeMetric::pcie_link_gen_ratio, ProbeMetric::pcie_link_width_ratio};
}  // namespace

std::vector<ProbeRecord> skipped_gpu_records(const std::string& why) {
  std::vector<ProbeRecord> out;
  for (const auto metric : kGpuMetrics) out.push_back(skipped(metric, why));
  return out;
}

std::vector<ProbeRecord> probe_gpu(const ProbeOptions& options, int local_rank) {
  if (!options.gpu) return skipped_gpu_records("the mpi engine measures no GPU");
  const doctor::GpuModule module;
  if (!module.loaded()) return skipped_gpu_records(module.unavailable_reason());
  return NCCLSWEEP_GPU_ENTRY(module, ncclsweep_gpu_probes)(options, local_rank);
}

}  // namespace ncclsweep::probe
