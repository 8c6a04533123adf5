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

// The add chain on the calling thread's core, then on every allowed core at once.
std::vector<ProbeRecord> probe_core_clock(const ProbeOptions& options);

// A thread on the rank's cores reads the monotonic clock in a loop for
// options.stall_seconds and counts the gaps (cyclictest's and jHiccup's idea).
std::vector<ProbeRecord> probe_stalls(const ProbeOptions& options);

// Gaps between consecutive clock reads (ns) -> max gap and gaps per second above 1 and
// 10 ms over `seconds` (pure; probe_stalls collects the gaps).
std::vector<ProbeRecord> stall_records(const std::vector<long long>& gaps_ns, double seconds);

// mmap + touch of every page + munmap of 64 MiB.
std::vector<ProbeRecord> probe_host_map_unmap(const ProbeOptions& options);

// Through hwloc: copy bandwidth from the rank's cores to memory bound on each NUMA node,
// and which node memory under the rank's own policy lands on. On a one-node machine the
// remote figure is skipped with that reason.
std::vector<ProbeRecord> probe_numa(const ProbeOptions& options);

}  // namespace ncclsweep::probe
