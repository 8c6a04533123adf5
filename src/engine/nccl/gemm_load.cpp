#include "engine/nccl/gemm_load.hpp"

#include <string>

#include "core/pattern_spec.hpp"
#include "pattern_kernels.hpp"

namespace ncclsweep {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw RuntimeFailure(call, cublasGetStatusString(status));
}

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

// Half types accumulate in float32, as training GEMMs do.
GemmTypes gemm_types(const DataType& dtype) {
  switch (dtype.nccl_id) {
    case kNcclBfloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case kNcclFloat16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case kNcclFloat64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    default: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
  }
}

}  // namespace

CublasHandle::CublasHandle() { check_cublas(cublasCreate(&handle_), "cublasCreate"); }

GemmLoad::GemmLoad(const ComputeLoad& load) : load_(load) {
  const std::size_t elem = load.dtype->bytes;
  a_.resize(load.m * load.k * elem);
  b_.resize(load.k * load.n * elem);
  c_.resize(load.m * load.n * elem);
  const auto format = element_format(*load.dtype);
  check_cuda(kernels::fill_input(a_.data(), load.m * load.k, format, false, 0, 1, 0, stream_.get()), "fill kernel");
  check_cuda(kernels::fill_input(b_.data(), load.k * load.n, format, false, 1, 2, 0, stream_.get()), "fill kernel");
  check_cublas(cublasSetStream(handle_.get(), stream_.get()), "cublasSetStream");
  stream_.synchronize();
}

void GemmLoad::launch_one() {
  const GemmTypes t = gemm_types(*load_.dtype);
  const int m = static_cast<int>(load_.m), n = static_cast<int>(load_.n), k = static_cast<int>(load_.k);
  const float alpha = 1, beta = 0;
  const double alpha64 = 1, beta64 = 0;
  const bool in_double = t.compute == CUBLAS_COMPUTE_64F;
  check_cublas(cublasGemmEx(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, in_double ? static_cast<const void*>(&alpha64) : &alpha,
                            a_.data(), t.data, m, b_.data(), t.data, k, in_double ? static_cast<const void*>(&beta64) : &beta,
                            c_.data(), t.data, m, t.compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

double GemmLoad::plain_loop_seconds(int count) {
  check_cuda(cudaEventRecord(loop_begin_.get(), stream_.get()), "cudaEventRecord");
  for (int i = 0; i < count; ++i) launch_one();
  check_cuda(cudaEventRecord(loop_end_.get(), stream_.get()), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(loop_end_.get()), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, loop_begin_.get(), loop_end_.get()), "cudaEventElapsedTime");
  return ms / 1e3 / count;
}

double GemmLoad::alone_seconds(int count) {
  start(count);
  stream_.synchronize();
  double total = 0;
  for (std::size_t i = 0; i < launched_; ++i) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, starts_[i]->get(), ends_[i]->get()), "cudaEventElapsedTime");
    total += ms / 1e3;
  }
  return total / static_cast<double>(launched_);
}

void GemmLoad::start(int ahead) {
  stream_.synchronize();
  launched_ = 0;
  ahead_ = ahead;
  for (int i = 0; i < ahead; ++i) launch_one_timed();
}

void GemmLoad::launch_one_timed() {
  while (starts_.size() <= launched_) {
    starts_.push_back(std::make_unique<Event>());
    ends_.push_back(std::make_unique<Event>());
  }
  check_cuda(cudaEventRecord(starts_[launched_]->get(), stream_.get()), "cudaEventRecord");
  launch_one();
  check_cuda(cudaEventRecord(ends_[launched_]->get(), stream_.get()), "cudaEventRecord");
  ++launched_;
}

double GemmLoad::since_first(cudaEvent_t event) const {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, starts_.front()->get(), event), "cudaEventElapsedTime");
  return ms / 1e3;
}

std::vector<TimeInterval> GemmLoad::keep_busy_until(cudaEvent_t from, cudaEvent_t done, TimeInterval& window) {
  // A new GEMM each time the one `ahead_` back has finished: the stream never runs dry
  // and the queue stays short, so the GEMMs stop soon after the collective does.
  while (true) {
    const cudaError_t state = cudaEventQuery(done);
    if (state == cudaSuccess) break;
    if (state != cudaErrorNotReady) check_cuda(state, "cudaEventQuery");
    const cudaError_t oldest = cudaEventQuery(ends_[launched_ - static_cast<std::size_t>(ahead_)]->get());
    if (oldest == cudaSuccess) {
      launch_one_timed();
    } else if (oldest != cudaErrorNotReady) {
      check_cuda(oldest, "cudaEventQuery");
    }
  }
  stream_.synchronize();
  std::vector<TimeInterval> gemms;
  gemms.reserve(launched_);
  for (std::size_t i = 0; i < launched_; ++i) gemms.push_back({since_first(starts_[i]->get()), since_first(ends_[i]->get())});
  window = {since_first(from), since_first(done)};
  return gemms;
}

}  // namespace ncclsweep
