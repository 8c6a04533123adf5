#pragma once
// Kernels of `ncclsweep probe`, callable from plain C++ through cudaLaunchKernel.
namespace ncclsweep {
// An empty __global__ function taking no arguments (grid 1, block 1 is enough).
const void* probe_empty_kernel();
}  // namespace ncclsweep
