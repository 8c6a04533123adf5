#include "probe/cpu_probes.hpp"

#include <hwloc.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>

#include "core/iteration_stats.hpp"
#include "core/units.hpp"
#include "doctor/busy_core_clock.hpp"

namespace ncclsweep::probe {
namespace {

using Clock = std::chrono::steady_clock;

// This thread's CPU time: map/unmap and copies are timed on it, so the time the thread
// waited for its core (a core shared with other work, a CPU quota) does not count there;
// the effective clock is what shows that.
double thread_cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// hwloc's topology, destroyed with its owner.
struct Topology {
  hwloc_topology_t handle = nullptr;
  Topology() {
    if (hwloc_topology_init(&handle) != 0) handle = nullptr;
    if (handle && hwloc_topology_load(handle) != 0) {
      hwloc_topology_destroy(handle);
      handle = nullptr;
    }
  }
  ~Topology() {
    if (handle) hwloc_topology_destroy(handle);
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};

struct Bitmap {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  ~Bitmap() { hwloc_bitmap_free(set); }
  Bitmap() = default;
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
};

// Memory bound to one NUMA node through hwloc, freed with its owner.
struct NodeBuffer {
  hwloc_topology_t topology;
  void* data = nullptr;
  std::size_t bytes;
  NodeBuffer(hwloc_topology_t t, hwloc_const_nodeset_t nodes, std::size_t n) : topology(t), bytes(n) {
    data = hwloc_alloc_membind(t, n, nodes, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
    if (data) std::memset(data, 1, n);  // first touch places the pages
  }
  ~NodeBuffer() {
    if (data) hwloc_free(topology, data, bytes);
  }
  NodeBuffer(const NodeBuffer&) = delete;
  NodeBuffer& operator=(const NodeBuffer&) = delete;
};

// Each of `repeats` copies of `bytes` from src to dst, in GB/s (read + write counted once).
std::vector<double> copy_gbps(void* dst, const void* src, std::size_t bytes, int repeats) {
  std::vector<double> out;
  for (int i = 0; i < std::max(repeats, 2); ++i) {
    const double start = thread_cpu_now();
    std::memcpy(dst, src, bytes);
    const double s = thread_cpu_now() - start;
    if (s > 0) out.push_back(static_cast<double>(bytes) / s * 1e-9);
  }
  return out;
}

double best_of(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<ProbeRecord> probe_core_clock(const ProbeOptions& options) {
  if (!doctor::add_chain_supported()) {
    const std::string why = "no add chain for this CPU architecture (x86-64 and aarch64 only)";
    return {skipped(ProbeMetric::busy_clock_ghz, why), skipped(ProbeMetric::busy_effective_ghz, why),
            skipped(ProbeMetric::all_cores_clock_ghz, why), skipped(ProbeMetric::all_cores_effective_ghz, why)};
  }
  const std::chrono::duration<double> round(options.clock_round_s);
  const auto cpus = allowed_cpus();
  // On the rank's own thread, unpinned: where the scheduler runs the rank's main thread.
  // Pinned to the rank's first core, every unbound rank of one machine measured on core 0.
  const auto one = doctor::measure_calling_core(round, options.clock_rounds);
  const std::string where = "cpu " + std::to_string(one.cpu);
  std::vector<ProbeRecord> out{
      checked(measured_repeats(ProbeMetric::busy_clock_ghz, one.cpu_ghz, one.round_cpu_ghz, where)),
      checked(measured_repeats(ProbeMetric::busy_effective_ghz, one.wall_ghz, one.round_wall_ghz,
                               where + ", share " + std::to_string(one.share).substr(0, 4)))};
  const auto all = doctor::measure_cores(cpus, round, options.clock_rounds);
  if (all.empty()) return out;
  const auto slowest_clock = std::min_element(all.begin(), all.end(), [](auto& a, auto& b) { return a.cpu_ghz < b.cpu_ghz; });
  const auto slowest_wall = std::min_element(all.begin(), all.end(), [](auto& a, auto& b) { return a.wall_ghz < b.wall_ghz; });
  const std::string span = std::to_string(all.size()) + " cores";
  out.push_back(checked(measured_repeats(ProbeMetric::all_cores_clock_ghz, slowest_clock->cpu_ghz,
                                         slowest_clock->round_cpu_ghz,
                                         span + ", slowest cpu " + std::to_string(slowest_clock->cpu))));
  out.push_back(checked(measured_repeats(ProbeMetric::all_cores_effective_ghz, slowest_wall->wall_ghz,
                                         slowest_wall->round_wall_ghz,
                                         span + ", slowest cpu " + std::to_string(slowest_wall->cpu))));
  return out;
}

int stall_slices(double seconds) { return std::clamp(static_cast<int>(seconds / 0.2), 1, 10); }

std::vector<ProbeRecord> stall_records(const StallWatch& watch) {
  const double s = watch.seconds > 0 ? watch.seconds : 1;
  const int slices = std::max<int>(static_cast<int>(watch.slice_reads.size()), 1);
  const double slice_s = s / slices;
  const int ran_in = static_cast<int>(
      std::count_if(watch.slice_reads.begin(), watch.slice_reads.end(), [](int reads) { return reads > 0; }));
  const std::string detail = std::to_string(watch.gaps.size()) + " gaps over 50 us in " + std::to_string(s).substr(0, 4) +
                             " s, clock read in " + std::to_string(ran_in) + " of " + std::to_string(slices) + " slices";
  if (2 * ran_in < slices) {
    const std::string why = "the stall watcher read the clock in only " + std::to_string(ran_in) + " of " +
                            std::to_string(slices) +
                            " slices of its watch: it hardly ran (the rank's cores were taken), so how long and how "
                            "often its threads stop cannot be told (the effective clock shows the share it got)";
    return {unresolved(ProbeMetric::stall_max_ms, why, detail), unresolved(ProbeMetric::stalls_over_1ms_per_s, why, detail),
            unresolved(ProbeMetric::stalls_over_10ms_per_s, why, detail)};
  }
  double max_gap = 0;
  int over_1ms = 0, over_10ms = 0;
  std::vector<double> slice_max(static_cast<std::size_t>(slices), 0), slice_1ms(slice_max), slice_10ms(slice_max);
  for (const StallGap& gap : watch.gaps) {
    const auto at = static_cast<std::size_t>(std::clamp(static_cast<int>(gap.end_s / slice_s), 0, slices - 1));
    max_gap = std::max(max_gap, gap.length_s);
    slice_max[at] = std::max(slice_max[at], gap.length_s * 1e3);
    if (gap.length_s > 1e-3) {
      ++over_1ms;
      slice_1ms[at] += 1 / slice_s;
    }
    if (gap.length_s > 10e-3) {
      ++over_10ms;
      slice_10ms[at] += 1 / slice_s;
    }
  }
  return {measured_repeats(ProbeMetric::stall_max_ms, max_gap * 1e3, slice_max, detail),
          measured_repeats(ProbeMetric::stalls_over_1ms_per_s, over_1ms / s, slice_1ms, detail),
          measured_repeats(ProbeMetric::stalls_over_10ms_per_s, over_10ms / s, slice_10ms, detail)};
}

std::vector<ProbeRecord> probe_stalls(const ProbeOptions& options) {
  StallWatch watch;
  watch.seconds = options.stall_seconds;
  watch.slice_reads.assign(static_cast<std::size_t>(stall_slices(options.stall_seconds)), 0);
  // The watch starts now, not when the watcher first runs: a watcher kept off the CPU
  // from the start has that wait as its first gap. Unpinned, it runs where the rank's
  // threads may (pinned to the first allowed core, every unbound rank watched core 0).
  const auto start = Clock::now();
  std::thread watcher([&] {
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.stall_seconds));
    const double slice_s = options.stall_seconds / static_cast<double>(watch.slice_reads.size());
    const int last_slice = static_cast<int>(watch.slice_reads.size()) - 1;
    auto last = start;
    for (bool watching = true; watching;) {
      const auto now = Clock::now();
      const double at = std::chrono::duration<double>(now - start).count();
      const auto gap = now - last;
      // The gap that runs past the end counts too: a watcher starved beyond the end
      // otherwise left its longest stall out (and read as a quiet core).
      if (gap > std::chrono::microseconds(50)) watch.gaps.push_back({at, std::chrono::duration<double>(gap).count()});
      if (now < end) ++watch.slice_reads[static_cast<std::size_t>(std::min(static_cast<int>(at / slice_s), last_slice))];
      last = now;
      watching = now < end;
    }
  });
  watcher.join();
  return stall_records(watch);
}

std::vector<ProbeRecord> probe_host_map_unmap(const ProbeOptions& options) {
  const std::size_t bytes = 64 * kMiB;
  const long page = sysconf(_SC_PAGESIZE);
  std::vector<double> us;
  for (int i = 0; i < options.repeats; ++i) {
    const double start = thread_cpu_now();
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return {skipped(ProbeMetric::host_mmap_64mib_us, std::string("mmap failed: ") + std::strerror(errno))};
    for (std::size_t at = 0; at < bytes; at += static_cast<std::size_t>(page)) static_cast<volatile char*>(p)[at] = 1;
    munmap(p, bytes);
    us.push_back((thread_cpu_now() - start) * 1e6);
  }
  return {measured_repeats(ProbeMetric::host_mmap_64mib_us, median_of(us), us, "mmap + touch + munmap")};
}

std::vector<ProbeRecord> probe_numa(const ProbeOptions& options) {
  const Topology topology;
  if (!topology.handle) {
    const std::string why = "hwloc could not load this machine's topology";
    return {skipped(ProbeMetric::numa_local_copy_gbps, why), skipped(ProbeMetric::numa_remote_copy_gbps, why),
            skipped(ProbeMetric::memory_on_local_node, why)};
  }
  hwloc_topology_t t = topology.handle;
  Bitmap cpus, local_nodes;
  hwloc_get_cpubind(t, cpus.set, HWLOC_CPUBIND_PROCESS);
  hwloc_cpuset_to_nodeset(t, cpus.set, local_nodes.set);
  const int nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  const std::size_t bytes = 64 * kMiB;
  std::vector<ProbeRecord> out;
  double local = 0, remote = -1;
  std::vector<double> local_repeats, remote_repeats;
  int remote_node = -1;
  std::string local_names;
  for (int i = 0; i < nodes; ++i) {
    const hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    const NodeBuffer src(t, node->nodeset, bytes), dst(t, node->nodeset, bytes);
    if (!src.data || !dst.data) continue;  // a node without memory to spare, or binding refused
    const std::vector<double> copies = copy_gbps(dst.data, src.data, bytes, options.repeats / 4 + 2);
    const double gbps = best_of(copies);
    if (hwloc_bitmap_isset(local_nodes.set, node->os_index)) {
      if (gbps > local) local_repeats = copies;
      local = std::max(local, gbps);
      local_names += (local_names.empty() ? "node " : ",") + std::to_string(node->os_index);
    } else if (remote < 0 || gbps < remote) {
      remote = gbps;
      remote_repeats = copies;
      remote_node = static_cast<int>(node->os_index);
    }
  }
  if (local > 0) {
    out.push_back(measured_repeats(ProbeMetric::numa_local_copy_gbps, local, local_repeats, local_names));
  } else {
    out.push_back(skipped(ProbeMetric::numa_local_copy_gbps, "no memory could be bound to the cores' own node"));
  }
  if (nodes < 2) {
    out.push_back(skipped(ProbeMetric::numa_remote_copy_gbps, std::string(kOneNumaNode)));
  } else if (remote >= 0) {
    out.push_back(measured_repeats(ProbeMetric::numa_remote_copy_gbps, remote, remote_repeats,
                                   "node " + std::to_string(remote_node)));
  } else {
    out.push_back(skipped(ProbeMetric::numa_remote_copy_gbps, "no memory could be bound to another node"));
  }
  if (nodes < 2) {
    out.push_back(skipped(ProbeMetric::memory_on_local_node, "one NUMA node: memory is always on the cores' node"));
    return out;
  }
  // Where memory under the rank's own policy (numactl, the launcher) really lands.
  std::vector<char> plain(bytes, 1);
  Bitmap landed;
  if (hwloc_get_area_memlocation(t, plain.data(), bytes, landed.set, HWLOC_MEMBIND_BYNODESET) == 0 &&
      !hwloc_bitmap_iszero(landed.set)) {
    char* text = nullptr;
    hwloc_bitmap_list_asprintf(&text, landed.set);
    const std::string where = std::string("lands on node ") + (text ? text : "?");
    std::free(text);
    const double share = hwloc_bitmap_isincluded(landed.set, local_nodes.set) ? 1.0
                         : hwloc_bitmap_intersects(landed.set, local_nodes.set) ? 0.5
                                                                                 : 0.0;
    out.push_back(measured(ProbeMetric::memory_on_local_node, share, 0, where));
  } else {
    out.push_back(skipped(ProbeMetric::memory_on_local_node, "hwloc cannot tell where this memory lies"));
  }
  return out;
}

}  // namespace ncclsweep::probe
