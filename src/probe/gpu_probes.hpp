#pragma once
// The probes that need the rank's GPU (local rank % visible GPUs, as the nccl engine
// picks it): host cost of tiny GPU work, GPU map/unmap, and the GPU under load (pinned
// copies, HBM copy, a bf16 cuBLAS GEMM with NVML read during it), measured in the GPU
// module, which only options.gpu loads. Without CUDA in the build, without a GPU, or with
// options.gpu false, every figure is a skipped record saying why.
#include <vector>

#include "probe/probe_options.hpp"
#include "probe/probe_record.hpp"

namespace ncclsweep::probe {

std::vector<ProbeRecord> probe_gpu(const ProbeOptions& options, int local_rank);

// Every GPU metric, skipped with `why` (also used by probe_gpu's own early exits).
std::vector<ProbeRecord> skipped_gpu_records(const std::string& why);

// The GPU module's side of probe_gpu (gpu_probes_cuda.cpp, doctor/gpu_module.hpp).
extern "C" std::vector<ProbeRecord> ncclsweep_gpu_probes(const ProbeOptions& options, int local_rank);

}  // namespace ncclsweep::probe
