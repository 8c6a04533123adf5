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

// A cudaMalloc'd buffer that can only grow; contents are not kept on growth.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void reserve(std::size_t bytes) {
    if (bytes <= capacity_) return;
    release();
    check_free_memory(bytes);
    check_cuda(cudaMalloc(&data_, bytes), "cudaMalloc");
    capacity_ = bytes;
  }
  std::byte* data() const { return static_cast<std::byte*>(data_); }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
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
