#pragma once
// How many GPUs this process sees; 0 when CUDA cannot tell (no driver, no device), so
// GPU tests skip with that count in their reason.
#include <cuda_runtime.h>

namespace ncclsweep::testing {

inline int visible_gpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

}  // namespace ncclsweep::testing
