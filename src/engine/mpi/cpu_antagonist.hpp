#pragma once
// The mpi engine's compute load, a CPU analogue of a GEMM beside NCCL (docs/overlap.md):
// a blocked matrix multiply on a thread of its own, pinned to the cores this rank may
// run on, so it competes with the rank's collectives for those cores and their caches
// as a GEMM competes with NCCL's thread blocks for SMs and memory bandwidth.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/compute_load.hpp"
#include "engine/overlap_window.hpp"

namespace ncclsweep {

class CpuAntagonist {
 public:
  // Allocates the matrices and starts the (idle) thread. float64 loads multiply in
  // double, every other dtype in float (the CPU has no bfloat16 units to speak of).
  explicit CpuAntagonist(const ComputeLoad& load);
  ~CpuAntagonist();
  CpuAntagonist(const CpuAntagonist&) = delete;
  CpuAntagonist& operator=(const CpuAntagonist&) = delete;

  const ComputeLoad& load() const { return load_; }
  // Starts GEMMs back to back and returns once the first has begun.
  void start();
  // Asks the thread to stop after the GEMM it is in, waits for it, and returns every
  // GEMM since start() on the steady clock (seconds).
  std::vector<TimeInterval> stop();
  // `count` GEMMs back to back on the thread, alone; the seconds per GEMM.
  double run_alone(int count);

 private:
  void loop();
  void multiply();

  ComputeLoad load_;
  bool in_double_ = false;
  std::vector<float> af_, bf_, cf_;
  std::vector<double> ad_, bd_, cd_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool running_ = false, stopping_ = false, quit_ = false, started_ = false;
  int wanted_ = -1;  // GEMMs to run before stopping by itself; -1: until stop()
  std::vector<TimeInterval> done_;
  std::thread thread_;  // last: it starts once everything above exists
};

}  // namespace ncclsweep
