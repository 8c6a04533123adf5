#include "doctor/gpu_probe.hpp"

#include <sstream>

#include "doctor/gpu_module.hpp"
#include "doctor/nvidia_smi.hpp"
#include "doctor/nvml_reader.hpp"

namespace ncclsweep::doctor {

GpuFacts probe_gpu(int local_rank) {
  const GpuModule module;
  if (!module.loaded()) {
    GpuFacts gpu;
    gpu.unavailable_reason = module.unavailable_reason();
    return gpu;
  }
  return NCCLSWEEP_GPU_ENTRY(module, ncclsweep_gpu_facts)(local_rank);
}

void add_nccl_versions(RankFacts& facts) {
  const GpuModule module;
  if (module.loaded()) NCCLSWEEP_GPU_ENTRY(module, ncclsweep_gpu_nccl_versions)(facts);
}

std::optional<std::int64_t> gpu_free_mib() {
  const GpuModule module;
  if (!module.loaded()) return std::nullopt;
  const std::int64_t mib = NCCLSWEEP_GPU_ENTRY(module, ncclsweep_gpu_free_mib)();
  return mib < 0 ? std::nullopt : std::optional<std::int64_t>(mib);
}

void add_gpu_state(GpuFacts& gpu) {
  if (gpu.bus_id.empty()) return;
  const NvmlLibrary nvml;
  NvmlSample sample;
  std::string why;
  if (nvml.sample(gpu.bus_id, sample, why)) {
    apply_nvml_sample(sample, gpu);
    return;
  }
  add_nvidia_smi_facts(gpu);
  if (!gpu.unavailable_reason.empty()) gpu.unavailable_reason = why + "; " + gpu.unavailable_reason;
}

std::vector<std::string> gpu_fact_disagreements(const GpuFacts& a, const GpuFacts& b) {
  std::vector<std::string> out;
  const auto same = [&](const char* name, const auto& x, const auto& y) {
    if (x == y) return;
    std::ostringstream line;
    line << name << " " << x << " vs " << y;
    out.push_back(line.str());
  };
  same("model", a.model, b.model);
  same("driver", a.driver, b.driver);
  same("sm_clock_max_mhz", a.sm_clock_max_mhz, b.sm_clock_max_mhz);
  same("mem_clock_max_mhz", a.mem_clock_max_mhz, b.mem_clock_max_mhz);
  same("power_limit_w", a.power_limit_w, b.power_limit_w);
  same("power_limit_max_w", a.power_limit_max_w, b.power_limit_max_w);
  same("pcie_gen_max", a.pcie_gen_max, b.pcie_gen_max);
  same("pcie_width_max", a.pcie_width_max, b.pcie_width_max);
  same("ecc_uncorrectable", a.ecc_uncorrectable, b.ecc_uncorrectable);
  same("remapping_pending", a.remapping_pending, b.remapping_pending);
  return out;
}

void add_nvidia_smi_facts(GpuFacts& gpu) {
  if (gpu.bus_id.empty()) return;
  const auto xml = program_output({"nvidia-smi", "-q", "-x", "-i", gpu.bus_id});
  if (!xml || !apply_nvidia_smi_xml(*xml, gpu)) {
    gpu.unavailable_reason = "nvidia-smi -q -x gave no answer for this GPU";
    return;
  }
  if (const auto links = program_output({"nvidia-smi", "nvlink", "-s", "-i", gpu.bus_id})) {
    apply_nvlink_status(*links, gpu);
  }
}

}  // namespace ncclsweep::doctor
