#include "doctor/busy_core_clock.hpp"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <thread>

#include "core/iteration_stats.hpp"

namespace ncclsweep::doctor {
namespace {

#define NCCLSWEEP_X4(s) s s s s
#define NCCLSWEEP_X16(s) NCCLSWEEP_X4(NCCLSWEEP_X4(s))
#define NCCLSWEEP_X64(s) NCCLSWEEP_X4(NCCLSWEEP_X16(s))

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// About 1 ms of adds at 4 GHz: short enough that a round ends close to its length.
constexpr std::uint64_t kBlocksPerStep = 60000;

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);  // best effort: see the header
}

}  // namespace

bool add_chain_supported() {
#if defined(__x86_64__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

std::uint64_t run_add_chain(std::uint64_t blocks) {
  std::uint64_t sum = 0;
  const std::uint64_t one = 1;
  for (std::uint64_t b = 0; b < blocks; ++b) {
#if defined(__x86_64__)
    asm volatile(NCCLSWEEP_X64("add %1, %0\n\t") : "+r"(sum) : "r"(one));
#elif defined(__aarch64__)
    asm volatile(NCCLSWEEP_X64("add %0, %0, %1\n\t") : "+r"(sum) : "r"(one));
#else
    (void)one;
#endif
  }
  return sum;
}

CoreClockReading measure_calling_core(std::chrono::duration<double> round_length, int rounds) {
  CoreClockReading result;
  if (!add_chain_supported()) return result;
  std::vector<double> wall_rates, shares;
  for (int round = 0; round < rounds; ++round) {
    const double wall_start = wall_seconds(), cpu_start = thread_cpu_seconds();
    std::uint64_t blocks = 0;
    double wall = 0;
    do {
      run_add_chain(kBlocksPerStep);
      blocks += kBlocksPerStep;
      wall = wall_seconds() - wall_start;
    } while (wall < round_length.count());
    const double cpu = thread_cpu_seconds() - cpu_start;
    const double adds = static_cast<double>(blocks) * 64;
    result.cpu = sched_getcpu();
    result.round_cpu_ghz.push_back(cpu > 0 ? adds / cpu * 1e-9 : 0);
    result.cpu_ghz = std::max(result.cpu_ghz, result.round_cpu_ghz.back());
    wall_rates.push_back(adds / wall * 1e-9);
    shares.push_back(wall > 0 ? cpu / wall : 0);
  }
  result.round_wall_ghz = wall_rates;
  result.wall_ghz = median_of(wall_rates);
  result.share = median_of(shares);
  return result;
}

std::vector<CoreClockReading> measure_cores(const std::vector<int>& cpus, std::chrono::duration<double> round_length,
                                            int rounds) {
  std::vector<CoreClockReading> readings(cpus.size());
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      pin_to(cpus[i]);
      readings[i] = measure_calling_core(round_length, rounds);
    });
  }
  for (auto& thread : threads) thread.join();
  return readings;
}

}  // namespace ncclsweep::doctor
