#pragma once
// The live side of the GPU facts: which GPU this rank would drive (through CUDA, in the
// GPU module when ncclsweep was built with it: gpu_module.hpp) and what NVML (or
// nvidia-smi) says about it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "doctor/rank_facts.hpp"

namespace ncclsweep::doctor {

// The GPU `local_rank % visible GPUs` (as the nccl engine picks it): its bus id, or
// an unavailable_reason when there is none or the build has no CUDA.
GpuFacts probe_gpu(int local_rank);

// Adds the GPU's own state (clocks, power, ECC, PCIe, NVLink) to a GPU with a bus id:
// through NVML (nvml_reader.hpp) where the driver's library loads, else through
// nvidia-smi; on failure notes why in unavailable_reason.
void add_gpu_state(GpuFacts& gpu);

// nvidia-smi's view alone (XML query and NVLink status); kept as the fallback and as
// the second opinion that NVML is checked against.
void add_nvidia_smi_facts(GpuFacts& gpu);

// The facts on which two readings of one GPU disagree ("sm_clock_max_mhz 1980 vs 1755"),
// over the fields that do not move by themselves (maximum clocks, power limits, PCIe
// maximum link, model, driver); empty when they agree.
std::vector<std::string> gpu_fact_disagreements(const GpuFacts& a, const GpuFacts& b);

// ncclGetVersion and NCCL_VERSION_CODE as "2.28.3"; both empty without NCCL.
void add_nccl_versions(RankFacts& facts);

// Free memory of the current CUDA device in MiB (cudaMemGetInfo); empty without CUDA or a GPU.
std::optional<std::int64_t> gpu_free_mib();

// The GPU module's side of the three above (gpu_probe_cuda.cpp); free MiB -1 when unknown.
extern "C" GpuFacts ncclsweep_gpu_facts(int local_rank);
extern "C" void ncclsweep_gpu_nccl_versions(RankFacts& facts);
extern "C" std::int64_t ncclsweep_gpu_free_mib();

}  // namespace ncclsweep::doctor
