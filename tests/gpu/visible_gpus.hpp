#pragma once
// How many GPUs this process sees, and the one skip every GPU test uses when there are too
// few: 0 when CUDA cannot tell (no driver, no device), so the reason names the count.
#include <cuda_runtime.h>

#include <string>

#include "catch_compat.hpp"

namespace ncclsweep::testing {

inline int visible_gpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

inline std::string needs_gpus(int needed, int visible, const std::string& why) {
  return "needs " + std::to_string(needed) + (needed == 1 ? " GPU (" : " GPUs (") + why + "), " +
         std::to_string(visible) + " visible";
}

}  // namespace ncclsweep::testing

// Skips the running test (NCCLSWEEP_SKIP: reported as skipped on Catch2 v2 and v3) unless
// this process sees at least `needed` GPUs; `why` says what they are for.
#define NCCLSWEEP_SKIP_UNLESS_GPUS(needed, why)                                                           \
  do {                                                                                                    \
    const int visible_gpus_now = ::ncclsweep::testing::visible_gpus();                                   \
    if (visible_gpus_now < (needed))                                                                      \
      NCCLSWEEP_SKIP(::ncclsweep::testing::needs_gpus((needed), visible_gpus_now, (why)));               \
  } while (false)
