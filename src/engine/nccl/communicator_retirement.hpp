#pragma once
// Destroys finished communicators on a thread while the next one starts.
//
// Why: ncclCommDestroy joins NCCL's UDS proxy thread, which notices the stop flag only
// when its poll() times out, every 500 ms (src/proxy.cc, ncclProxyServiceUDS, NCCL 2.19
// and later). Each destroy therefore sleeps 0.25 s on average - measured 0.24 s per point
// on the GPU machine, the largest cost ncclsweep adds to a sweep. On a thread, that sleep
// overlaps the next communicator's init, check call and connection setup.
//
// Fidelity: the engine calls wait() before anything it times, and before capturing a
// CUDA graph, so no timed call and no capture runs while a communicator is being torn
// down. The next communicator's init does overlap it (init_time_us includes that:
// re-init measured 0.033-0.041 s with the overlap, 0.041-0.070 s without). NCCL allows
// different communicators to be used from different threads.
#include <cuda_runtime.h>

#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "engine/nccl/cuda_handles.hpp"

namespace ncclsweep {

class CommunicatorRetirement {
 public:
  explicit CommunicatorRetirement(int gpu_index) : gpu_index_(gpu_index) {}
  ~CommunicatorRetirement() { wait(); }
  CommunicatorRetirement(const CommunicatorRetirement&) = delete;
  CommunicatorRetirement& operator=(const CommunicatorRetirement&) = delete;

  // Destroys `comms` in their order (sub-communicators before their parent) on a
  // thread. Nothing may refer to them any more: graphs and registrations go first.
  void retire(std::vector<std::unique_ptr<Communicator>> comms) {
    wait();  // one teardown at a time
    if (comms.empty()) return;
    thread_ = std::thread([gpu = gpu_index_, doomed = std::move(comms)]() mutable {
      cudaSetDevice(gpu);  // the runtime's current device is per thread
      for (auto& comm : doomed) comm.reset();
    });
  }

  // Returns once every retired communicator is destroyed.
  void wait() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  int gpu_index_;
  std::thread thread_;
};

}  // namespace ncclsweep
