// A library to preload (LD_PRELOAD) that calls setenv() before main, as libfaketime and
// other preloaded tools do: glibc then moves `environ` to the heap, main's envp is that
// heap array, and the next setenv() (MPI_Init's) frees it. ncclsweep must have its own
// copy by then (core/environment.hpp); test_robust_launch.cpp runs ranks with this.
#include <cstdlib>

namespace {

__attribute__((constructor)) void set_before_main() {
  setenv("NCCL_NCCLSWEEP_TEST_PRELOADED", "set-before-main", 1);
}

}  // namespace
