#include "pattern_kernels.hpp"

namespace ncclsweep::kernels {
namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU; each thread then strides over the buffer.
unsigned blocks_for(std::uint64_t elements) {
  const std::uint64_t wanted = (elements + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < 4096 ? (wanted == 0 ? 1 : wanted) : 4096);
}

__global__ void fill_input_kernel(void* buffer, std::uint64_t elements, pattern::ElementFormat format, bool reduces,
                                  int rank, int nranks, int op) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < elements;
       i += stride) {
    pattern::store(buffer, i, pattern::input_value(reduces, rank, nranks, i, op), format);
  }
}

__global__ void fill_value_kernel(void* buffer, std::uint64_t elements, pattern::ElementFormat format, double value) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < elements;
       i += stride) {
    pattern::store(buffer, i, value, format);
  }
}

__global__ void count_wrong_kernel(const void* buffer, std::uint64_t elements, pattern::ElementFormat format,
                                   pattern::CheckSpec spec, unsigned long long* counter) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  // The block walks the buffer in lock step so __syncthreads_count sees every thread.
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x; base < elements; base += stride) {
    const std::uint64_t i = base + threadIdx.x;
    bool wrong = false;
    double expected = 0;
    if (i < elements && pattern::expected_output(spec, i, &expected)) {
      wrong = !pattern::matches(pattern::load(buffer, i, format), expected, spec.op, format);
    }
    const int block_wrong = __syncthreads_count(wrong);
    if (threadIdx.x == 0 && block_wrong > 0) atomicAdd(counter, static_cast<unsigned long long>(block_wrong));
  }
}

}  // namespace

cudaError_t fill_input(void* buffer, std::uint64_t elements, pattern::ElementFormat format, bool reduces, int rank,
                       int nranks, int op, cudaStream_t stream) {
  if (elements == 0) return cudaSuccess;
  fill_input_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(buffer, elements, format, reduces, rank, nranks,
                                                                   op);
  return cudaGetLastError();
}

cudaError_t fill_value(void* buffer, std::uint64_t elements, pattern::ElementFormat format, double value,
                       cudaStream_t stream) {
  if (elements == 0) return cudaSuccess;
  fill_value_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(buffer, elements, format, value);
  return cudaGetLastError();
}

cudaError_t count_wrong(const void* buffer, std::uint64_t elements, pattern::ElementFormat format,
                        pattern::CheckSpec spec, unsigned long long* counter, cudaStream_t stream) {
  if (elements == 0) return cudaSuccess;
  count_wrong_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(buffer, elements, format, spec, counter);
  return cudaGetLastError();
}

}  // namespace ncclsweep::kernels
