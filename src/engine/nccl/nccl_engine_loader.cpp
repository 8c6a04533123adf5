// make_nccl_engine in the executable: the engine itself is in the GPU module, which only
// a process that builds the nccl engine loads (doctor/gpu_module.hpp). Compiled into
// ncclsweep_engine, which links no GPU library.
#include "doctor/gpu_module.hpp"
#include "engine/nccl/nccl_engine.hpp"

namespace ncclsweep {

std::unique_ptr<Engine> make_nccl_engine(Coordinator& coordinator) {
  const doctor::GpuModule module;
  return NCCLSWEEP_GPU_ENTRY(module, ncclsweep_gpu_nccl_engine)(coordinator);
}

}  // namespace ncclsweep
