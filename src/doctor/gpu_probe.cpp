#include "doctor/gpu_probe.hpp"

#include "doctor/nvidia_smi.hpp"

#if NCCLSWEEP_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace ncclsweep::doctor {

#if NCCLSWEEP_HAVE_NCCL
namespace {
std::string nccl_version_text(int code) {  // 22803 -> "2.28.3"
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}
}  // namespace

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
