#pragma once
// The clock a busy core really runs at, measured without privileges: a chain of
// dependent integer adds retires one add per cycle on x86-64 and Arm cores (each add
// waits for the one before), so adds / elapsed time is the effective GHz. Read against
// the thread's own CPU time it is the core's clock while the thread ran (a core held
// below turbo); read against the wall clock it is what the thread got (a busy neighbour
// on the same core, a hypervisor's steal). Pure CPU; no GPU, no MPI.
#include <chrono>
#include <cstdint>
#include <vector>

namespace ncclsweep::doctor {

struct CoreClockReading {
  int cpu = -1;         // the core the thread ran on at the end (sched_getcpu)
  double wall_ghz = 0;  // adds per wall-clock nanosecond
  double cpu_ghz = 0;   // adds per nanosecond of the thread's own CPU time
  double share = 0;     // thread CPU time / wall time (1: the core was the thread's alone)
  // Each round's figures, in order: what the best and the median above were taken from.
  std::vector<double> round_cpu_ghz, round_wall_ghz;
};

// False on an architecture without the add chain (then every reading is zero).
bool add_chain_supported();

// Runs `blocks` x 64 dependent adds and returns the sum (so the work is observable).
std::uint64_t run_add_chain(std::uint64_t blocks);

// The calling thread's core: `rounds` rounds of `round_length` each. The clock is the
// best round's (adds per CPU second: what the core runs at while the thread runs). The
// wall rate and share are the median round's: a passing burst in one round does not
// count, while a disturbance that keeps coming back does, even one that leaves the core
// alone for a while each second (a real-time thread under the kernel's RT throttling, a
// hypervisor's housekeeping) and so leaves the best round clean.
CoreClockReading measure_calling_core(std::chrono::duration<double> round_length, int rounds);

// One thread pinned to each of `cpus`, all running at once (every core of the rank busy,
// as in a training step), each measured as measure_calling_core does. A cpu that cannot
// be pinned (not in the process's allowed set) is measured unpinned (its reading's cpu
// then says where it ran).
std::vector<CoreClockReading> measure_cores(const std::vector<int>& cpus, std::chrono::duration<double> round_length,
                                            int rounds);

}  // namespace ncclsweep::doctor
