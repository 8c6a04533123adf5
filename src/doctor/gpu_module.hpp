#pragma once
// The GPU module, libncclsweep-gpu.so: every call into CUDA, NCCL, cuBLAS and NVML's
// headers (the nccl engine, the GPU probes, the GPU facts) is built into it, and a process
// loads it only when it drives a GPU. `plan`, `report`, `compare` and the mpi engine never
// map the GPU libraries, which cost each process about a second and 95 MB (cuBLAS alone).
//
// Its entry points are extern "C" functions named ncclsweep_gpu_*, each declared in the
// header of the layer that uses it and defined in the module; the executable never links
// them, it looks each up with NCCLSWEEP_GPU_ENTRY, which takes its type from that one
// declaration. The module holds its own copy of the layers below it, so it needs nothing
// from the executable but the types both were built with.
#include <string>

#include "core/errors.hpp"

namespace ncclsweep::doctor {

class GpuModule {
 public:
  // Loads the module beside the executable (a build tree) or in ../lib/ncclsweep (an
  // install, bin/ncclsweep). Never throws: when it cannot, loaded() is false and
  // unavailable_reason() says why and what to do.
  GpuModule();
  ~GpuModule();
  GpuModule(const GpuModule&) = delete;
  GpuModule& operator=(const GpuModule&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  // The entry point `name` of type F; throws RuntimeFailure when not loaded or when the
  // module lacks it (one from another build).
  template <typename F>
  F& entry(const char* name) const {
    return *reinterpret_cast<F*>(symbol(name));
  }

 private:
  void* symbol(const char* name) const;

  void* handle_ = nullptr;
  std::string path_, unavailable_reason_;
};

}  // namespace ncclsweep::doctor

// The module's function `function` (declared extern "C" in a header), typed by its declaration.
#define NCCLSWEEP_GPU_ENTRY(module, function) ((module).entry<decltype(function)>(#function))
