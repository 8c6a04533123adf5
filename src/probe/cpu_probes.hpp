#pragma once
// The probes that need only the CPU (and so also run with the mpi engine): busy-core
// clock, scheduling stalls, host map/unmap, NUMA placement and bandwidth. Each returns
// records with rank and host left for the caller to fill.
#include <string>
#include <vector>

#include "probe/probe_options.hpp"
#include "probe/probe_record.hpp"

namespace ncclsweep::probe {

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// The add chain on the calling thread (where the scheduler runs the rank), then one
// thread pinned to every allowed core, all at once.
std::vector<ProbeRecord> probe_core_clock(const ProbeOptions& options);

// What the stall watcher saw: a thread on the rank's cores reads the monotonic clock in
// a loop for `seconds` and keeps every gap above 50 us (cyclictest's and jHiccup's idea).
struct StallGap {
  double end_s = 0;     // when the gap ended (the read after it), from the watch's start
  double length_s = 0;
};
struct StallWatch {
  double seconds = 0;            // how long the watch was meant to last
  std::vector<StallGap> gaps;    // the gap before the first read and after the last included
  std::vector<int> slice_reads;  // clock reads in each of the equal slices of the watch
};

// Slices of at least 0.2 s, at most 10 (a 1 s watch: 5 of 0.2 s; 10 s: 10 of 1 s).
int stall_slices(double seconds);

std::vector<ProbeRecord> probe_stalls(const ProbeOptions& options);

// The watch -> max gap and gaps per second above 1 and 10 ms, each with its figure per
// slice as repeats (pure; probe_stalls watches). A watcher that read the clock in fewer
// than half of the slices hardly ran: how often the rank's threads stop cannot be told
// from it (its few gaps would read as a quiet core), so all three are unresolved.
std::vector<ProbeRecord> stall_records(const StallWatch& watch);

// mmap + touch of every page + munmap of 64 MiB.
std::vector<ProbeRecord> probe_host_map_unmap(const ProbeOptions& options);

// Through hwloc: copy bandwidth from the rank's cores to memory bound on each NUMA node,
// and which node memory under the rank's own policy lands on. On a one-node machine the
// remote figure is skipped with kOneNumaNode (probe_metric.hpp), the placement with its own
// reason (the local copy is then
// plain memory bandwidth, and host_summary gives it that cause).
std::vector<ProbeRecord> probe_numa(const ProbeOptions& options);

}  // namespace ncclsweep::probe
