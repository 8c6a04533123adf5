#pragma once
// The nccl engine's compute load (docs/overlap.md): cuBLAS GEMMs of one shape on a stream
// of their own, each between two events, so a GEMM's time is its own even while NCCL's
// kernels share the GPU. Built only with cuBLAS (NCCLSWEEP_HAVE_CUBLAS).
#include <cublas_v2.h>

#include <memory>
#include <vector>

#include "core/compute_load.hpp"
#include "engine/nccl/cuda_handles.hpp"
#include "engine/overlap_window.hpp"

namespace ncclsweep {

class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

class GemmLoad {
 public:
  // Allocates A, B and C on the current device and fills A and B with varied values (a
  // GEMM of zeros draws less power and runs at other clocks than a real one).
  explicit GemmLoad(const ComputeLoad& load);
  const ComputeLoad& load() const { return load_; }

  // `count` GEMMs back to back, with nothing between them: cuBLAS at its own pace.
  double plain_loop_seconds(int count);
  // `count` GEMMs alone, each between its own events: the per-GEMM time.
  double alone_seconds(int count);
  // Launches `ahead` GEMMs, each between events; `first_started()` marks the first's start.
  void start(int ahead);
  cudaEvent_t first_started() const { return starts_.front()->get(); }
  // Keeps the stream `ahead` GEMMs deep until `done` (an event on another stream) has
  // happened, then lets it drain. Returns every GEMM since start(), in seconds after
  // the first's start; `window` gets `from` and `done` on the same clock.
  std::vector<TimeInterval> keep_busy_until(cudaEvent_t from, cudaEvent_t done, TimeInterval& window);

 private:
  void launch_one();
  void launch_one_timed();
  double since_first(cudaEvent_t event) const;

  ComputeLoad load_;
  CublasHandle handle_;
  Stream stream_;
  DeviceBuffer a_, b_, c_;
  std::vector<std::unique_ptr<Event>> starts_, ends_;  // per GEMM since start(); grow as needed
  std::size_t launched_ = 0;
  int ahead_ = 2;
  Event loop_begin_, loop_end_;
};

}  // namespace ncclsweep
