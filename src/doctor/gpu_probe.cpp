#include "doctor/gpu_probe.hpp"

#include <sstream>

#include "core/nccl_version.hpp"
#include "doctor/nvidia_smi.hpp"
#include "doctor/nvml_reader.hpp"

#if NCCLSWEEP_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace ncclsweep::doctor {

#if NCCLSWEEP_HAVE_NCCL
GpuFacts probe_gpu(int local_rank) {
  GpuFacts gpu;
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    gpu.unavailable_reason = status != cudaSuccess ? cudaGetErrorString(status) : "CUDA sees 0 devices";
    return gpu;
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, local_rank % devices) != cudaSuccess) {
    gpu.unavailable_reason = "cudaDeviceGetPCIBusId failed";
    return gpu;
  }
  gpu.bus_id = bus;
  return gpu;
}

void add_nccl_versions(RankFacts& facts) {
  int code = 0;
  if (ncclGetVersion(&code) == ncclSuccess) facts.nccl_library_version = nccl_version_text(code);
  facts.nccl_header_version = nccl_version_text(NCCL_VERSION_CODE);
}
#else
GpuFacts probe_gpu(int) {
  GpuFacts gpu;
  gpu.unavailable_reason = "ncclsweep was built without CUDA";
  return gpu;
}

void add_nccl_versions(RankFacts&) {}
#endif

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
