#pragma once
// RAII owners of CUDA and NCCL handles, so an error thrown anywhere leaves nothing
// behind and a re-init loop cannot leak. Failed calls become RuntimeFailure naming
// the call.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/errors.hpp"

namespace ncclsweep {

inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw RuntimeFailure(call, cudaGetErrorString(status));
}

inline void check_nccl(ncclResult_t status, const char* call, ncclComm_t comm = nullptr) {
  if (status == ncclSuccess) return;
  std::string detail = ncclGetErrorString(status);
  const char* last = comm ? ncclGetLastError(comm) : ncclGetLastError(nullptr);
  if (last && *last) detail += std::string(" (") + last + ")";
  throw RuntimeFailure(call, detail);
}

// Refuses, before trying, a buffer larger than the GPU's free memory (NCCL's own
// buffers and other processes take their share), naming the size and what to do.
inline void check_free_memory(std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (bytes <= free_bytes) return;
  const auto mib = [](std::size_t b) { return std::to_string(b >> 20) + " MiB"; };
  throw RuntimeFailure("cudaMalloc", "a buffer of " + mib(bytes) + " does not fit: " + mib(free_bytes) + " free of " +
                                         mib(total_bytes) + " on this GPU; fix: measure smaller --sizes, or free the "
                                         "GPU of other processes (nvidia-smi shows them)");
}

// A device buffer; contents are not kept when it is allocated anew. From cudaMalloc,
// or from ncclMemAlloc (VMM memory that NCCL can register and map into peers).
class DeviceBuffer {
 public:
  enum class Allocator { cuda, nccl };
  explicit DeviceBuffer(Allocator allocator = Allocator::cuda) : allocator_(allocator) {}
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // At least `bytes`, keeping a larger allocation. True when it had to allocate anew
  // (registrations of the old memory are then stale).
  bool reserve(std::size_t bytes) {
    if (bytes <= capacity_) return false;
    return allocate(rounded(bytes));
  }
  // Exactly `bytes` (granule-rounded for ncclMemAlloc): the buffer footprint is a
  // measured parameter, so a larger allocation left by an earlier size is not kept.
  bool resize(std::size_t bytes) {
    if (rounded(bytes) == capacity_) return false;
    return allocate(rounded(bytes));
  }
  bool would_resize(std::size_t bytes) const { return rounded(bytes) != capacity_; }
  std::byte* data() const { return static_cast<std::byte*>(data_); }
  std::size_t capacity() const { return capacity_; }

 private:
  // ncclMemAlloc maps whole granules (2 MiB on NVLink GPUs): take all of it, so a
  // registration or window covers the whole mapping.
  std::size_t rounded(std::size_t bytes) const {
    return allocator_ == Allocator::nccl ? (bytes + kNcclGranule - 1) / kNcclGranule * kNcclGranule : bytes;
  }
  bool allocate(std::size_t bytes) {
    release();
    check_free_memory(bytes);
    if (allocator_ == Allocator::cuda) {
      check_cuda(cudaMalloc(&data_, bytes), "cudaMalloc");
    } else {
      check_nccl(ncclMemAlloc(&data_, bytes), "ncclMemAlloc");
    }
    capacity_ = bytes;
    return true;
  }
  void release() {
    if (data_) allocator_ == Allocator::cuda ? void(cudaFree(data_)) : void(ncclMemFree(data_));
    data_ = nullptr;
    capacity_ = 0;
  }
  static constexpr std::size_t kNcclGranule = std::size_t(2) << 20;
  Allocator allocator_;
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

class Stream {
 public:
  Stream() { check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class PinnedCounter {
 public:
  PinnedCounter() { check_cuda(cudaMallocHost(&host_, sizeof(unsigned long long)), "cudaMallocHost"); }
  ~PinnedCounter() { cudaFreeHost(host_); }
  PinnedCounter(const PinnedCounter&) = delete;
  PinnedCounter& operator=(const PinnedCounter&) = delete;
  unsigned long long* get() const { return host_; }

 private:
  unsigned long long* host_ = nullptr;
};

// One buffer registered with one communicator: ncclCommRegister, or a symmetric window
// (ncclCommWindowRegister, collective over the communicator). Must go before the
// communicator and before the memory.
class BufferRegistration {
 public:
  BufferRegistration(ncclComm_t comm, void* data, std::size_t bytes, bool window) : comm_(comm), window_(window) {
    if (!window) {
      check_nccl(ncclCommRegister(comm, data, bytes, &handle_), "ncclCommRegister", comm);
      return;
    }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    check_nccl(ncclCommWindowRegister(comm, data, bytes, &window_handle_, NCCL_WIN_COLL_SYMMETRIC),
               "ncclCommWindowRegister", comm);
#else
    (void)data;
    (void)bytes;
    throw RuntimeFailure("ncclCommWindowRegister", "needs NCCL 2.27 or later");
#endif
  }
  ~BufferRegistration() {
    if (!window_) {
      if (handle_) ncclCommDeregister(comm_, handle_);
      return;
    }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (window_handle_) ncclCommWindowDeregister(comm_, window_handle_);
#endif
  }
  BufferRegistration(const BufferRegistration&) = delete;
  BufferRegistration& operator=(const BufferRegistration&) = delete;

 private:
  ncclComm_t comm_;
  bool window_;
  void* handle_ = nullptr;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  ncclWindow_t window_handle_ = nullptr;
#endif
};

// A captured CUDA graph, instantiated; its kernels reference the communicator and
// buffers they were captured with, so it must go before either.
class GraphExec {
 public:
  // Captures what `issue` launches on `stream` (nothing runs while capturing).
  template <typename Issue>
  GraphExec(cudaStream_t stream, Issue&& issue) {
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      issue();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);  // leave the stream usable
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    check_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    check_cuda(status, "cudaGraphInstantiate");
  }
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  void launch(cudaStream_t stream) const { check_cuda(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

class Communicator {
 public:
  Communicator(int nranks, const ncclUniqueId& id, int rank, ncclConfig_t& config) {
    check_nccl(ncclCommInitRankConfig(&comm_, nranks, id, rank, &config), "ncclCommInitRankConfig");
  }
  // A sub-communicator of `parent` holding the ranks of this colour (collective over parent).
  Communicator(const Communicator& parent, int color, int key) {
    check_nccl(ncclCommSplit(parent.get(), color, key, &comm_, nullptr), "ncclCommSplit");
  }
  ~Communicator() {
    if (comm_) ncclCommDestroy(comm_);
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

}  // namespace ncclsweep
