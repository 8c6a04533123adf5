#pragma once
#include <memory>

#include "engine/coordinator.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {

// GPU buffers and NCCL collectives on one GPU per rank: GPU = local rank modulo the
// visible GPUs (so `srun --gpus-per-task=1` works). The ncclUniqueId comes from rank 0
// through the coordinator. Throws UsageError when no GPU is visible, RuntimeFailure when
// the GPU module (doctor/gpu_module.hpp), which holds the engine, does not load.
std::unique_ptr<Engine> make_nccl_engine(Coordinator& coordinator);

// The GPU module's side of make_nccl_engine (nccl_engine.cpp; nccl_engine_loader.cpp loads it).
extern "C" std::unique_ptr<Engine> ncclsweep_gpu_nccl_engine(Coordinator& coordinator);

}  // namespace ncclsweep
