// The GPU module's GPU facts (gpu_module.hpp): the CUDA and NCCL calls behind probe_gpu,
// add_nccl_versions and gpu_free_mib.
#include <cuda_runtime.h>
#include <nccl.h>

#include "core/nccl_version.hpp"
#include "doctor/gpu_probe.hpp"

namespace ncclsweep::doctor {

extern "C" GpuFacts ncclsweep_gpu_facts(int local_rank) {
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

extern "C" void ncclsweep_gpu_nccl_versions(RankFacts& facts) {
  int code = 0;
  if (ncclGetVersion(&code) == ncclSuccess) facts.nccl_library_version = nccl_version_text(code);
  facts.nccl_header_version = nccl_version_text(NCCL_VERSION_CODE);
}

extern "C" std::int64_t ncclsweep_gpu_free_mib() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return -1;
  return static_cast<std::int64_t>(free_bytes >> 20);
}

}  // namespace ncclsweep::doctor
