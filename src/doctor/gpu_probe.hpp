#pragma once
// The live side of the GPU facts: which GPU this rank would drive (through CUDA, when
// ncclsweep was built with it) and what nvidia-smi says about it.
#include <string>

#include "doctor/rank_facts.hpp"

namespace ncclsweep::doctor {

// The GPU `local_rank % visible GPUs` (as the nccl engine picks it): its bus id, or
// an unavailable_reason when there is none or the build has no CUDA.
GpuFacts probe_gpu(int local_rank);

// Adds nvidia-smi's view (XML query and NVLink status) to a GPU with a bus id; on
// failure notes why in unavailable_reason.
void add_nvidia_smi_facts(GpuFacts& gpu);

// ncclGetVersion and NCCL_VERSION_CODE as "2.28.3"; both empty without NCCL.
void add_nccl_versions(RankFacts& facts);

}  // namespace ncclsweep::doctor
