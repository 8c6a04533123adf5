#include "cache_flush.hpp"

#include <cstdint>

namespace ncclsweep::kernels {
namespace {

constexpr int kFlushThreads = 512;
constexpr int kBlocks = 1024;  // enough to keep every SM's loads in flight; the loop covers the rest

__global__ void read_through_kernel(const uint4* scratch, std::size_t vectors, unsigned long long* sink) {
  unsigned int folded = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = scratch[i];
    folded |= v.x | v.y | v.z | v.w;
  }
  if (folded != 0) *sink = folded;
}

}  // namespace

cudaError_t read_through(const void* scratch, std::size_t bytes, unsigned long long* sink, cudaStream_t stream) {
  const std::size_t vectors = bytes / sizeof(uint4);
  if (vectors == 0) return cudaSuccess;
  read_through_kernel<<<kBlocks, kFlushThreads, 0, stream>>>(static_cast<const uint4*>(scratch), vectors, sink);
  return cudaGetLastError();
}

}  // namespace ncclsweep::kernels
