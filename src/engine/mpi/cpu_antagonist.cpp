#include "engine/mpi/cpu_antagonist.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>

namespace ncclsweep {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// C += A * B in blocks that fit the L1/L2 caches, i-k-j inside a block so the inner loop
// streams rows; the compiler vectorises it.
template <typename T>
void blocked_multiply(const std::vector<T>& a, const std::vector<T>& b, std::vector<T>& c, std::size_t m, std::size_t n,
                      std::size_t k) {
  constexpr std::size_t kBlock = 64;
  for (std::size_t i0 = 0; i0 < m; i0 += kBlock) {
    for (std::size_t p0 = 0; p0 < k; p0 += kBlock) {
      for (std::size_t j0 = 0; j0 < n; j0 += kBlock) {
        const std::size_t i1 = std::min(i0 + kBlock, m), p1 = std::min(p0 + kBlock, k), j1 = std::min(j0 + kBlock, n);
        for (std::size_t i = i0; i < i1; ++i) {
          for (std::size_t p = p0; p < p1; ++p) {
            const T aip = a[i * k + p];
            const T* brow = &b[p * n];
            T* crow = &c[i * n];
            for (std::size_t j = j0; j < j1; ++j) crow[j] += aip * brow[j];
          }
        }
      }
    }
  }
}

// The cores this process may run on (what mpirun's binding gave the rank).
void pin_to_rank_cores(std::thread& thread) {
  cpu_set_t cores;
  CPU_ZERO(&cores);
  if (sched_getaffinity(0, sizeof cores, &cores) == 0) pthread_setaffinity_np(thread.native_handle(), sizeof cores, &cores);
}

}  // namespace

CpuAntagonist::CpuAntagonist(const ComputeLoad& load) : load_(load), in_double_(load.dtype->nccl_id == kNcclFloat64) {
  const std::size_t m = load.m, n = load.n, k = load.k;
  if (in_double_) {
    ad_.assign(m * k, 0.5), bd_.assign(k * n, 0.25), cd_.assign(m * n, 0);
  } else {
    af_.assign(m * k, 0.5f), bf_.assign(k * n, 0.25f), cf_.assign(m * n, 0);
  }
  thread_ = std::thread([this] { loop(); });
  pin_to_rank_cores(thread_);
}

CpuAntagonist::~CpuAntagonist() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CpuAntagonist::multiply() {
  if (in_double_) {
    blocked_multiply(ad_, bd_, cd_, load_.m, load_.n, load_.k);
    cd_[0] = 0;  // keeps the values bounded over many GEMMs; the stores keep the work observable
  } else {
    blocked_multiply(af_, bf_, cf_, load_.m, load_.n, load_.k);
    cf_[0] = 0;
  }
}

void CpuAntagonist::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return running_ || quit_; });
    if (quit_) return;
    while (!stopping_ && (wanted_ < 0 || static_cast<int>(done_.size()) < wanted_)) {
      started_ = true;
      lock.unlock();
      wake_.notify_all();
      const double begin = now_seconds();
      multiply();
      const double end = now_seconds();
      lock.lock();
      done_.push_back({begin, end});
    }
    running_ = false;
    lock.unlock();
    wake_.notify_all();
    lock.lock();
  }
}

void CpuAntagonist::start() {
  std::unique_lock lock(mutex_);
  done_.clear();
  running_ = true, stopping_ = false, started_ = false, wanted_ = -1;
  wake_.notify_all();
  wake_.wait(lock, [this] { return started_; });
}

std::vector<TimeInterval> CpuAntagonist::stop() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  wake_.wait(lock, [this] { return !running_; });
  stopping_ = false;
  return std::move(done_);
}

double CpuAntagonist::run_alone(int count) {
  std::unique_lock lock(mutex_);
  done_.clear();
  running_ = true, stopping_ = false, started_ = false, wanted_ = std::max(count, 1);
  wake_.notify_all();
  wake_.wait(lock, [this] { return !running_ && static_cast<int>(done_.size()) >= wanted_; });
  double total = 0;
  for (const TimeInterval& g : done_) total += g.end - g.start;
  const double per_gemm = total / static_cast<double>(done_.size());
  done_.clear();
  return per_gemm;
}

}  // namespace ncclsweep
