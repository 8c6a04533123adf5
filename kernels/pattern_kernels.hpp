#pragma once
// GPU side of the check pattern (src/core/pattern.hpp): fill buffers and count wrong
// elements without copying data back to the host.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/pattern.hpp"

namespace ncclsweep::kernels {

// Writes every element's input value (pattern::input_value) for this rank.
cudaError_t fill_input(void* buffer, std::uint64_t elements, pattern::ElementFormat format, bool reduces, int rank,
                       int nranks, int op, cudaStream_t stream);

// Writes `value` into every element.
cudaError_t fill_value(void* buffer, std::uint64_t elements, pattern::ElementFormat format, double value,
                       cudaStream_t stream);

// Adds to *counter (device memory) the number of elements that do not hold their
// expected output (pattern::expected_output).
cudaError_t count_wrong(const void* buffer, std::uint64_t elements, pattern::ElementFormat format,
                        pattern::CheckSpec spec, unsigned long long* counter, cudaStream_t stream);

}  // namespace ncclsweep::kernels
