#pragma once
// Evicting a collective's buffers from the GPU's L2 cache between timed samples
// (--cache flush, core/buffer_footprint.hpp).
#include <cuda_runtime.h>

#include <cstddef>

namespace ncclsweep::kernels {

// Reads every byte of `scratch` (device memory, `bytes` long, a multiple of 16) on `stream`,
// so the L2 cache afterwards holds clean lines of scratch and nothing of what ran before.
// Reading rather than writing: the lines left behind are clean, so the next timed call
// pays no write-back of them. `sink` (one device word) is written only if the scratch
// is not all zeroes, which it always is: it keeps the reads from being optimised away.
cudaError_t read_through(const void* scratch, std::size_t bytes, unsigned long long* sink, cudaStream_t stream);

}  // namespace ncclsweep::kernels
