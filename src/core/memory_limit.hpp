#pragma once
// How much memory this process may use: the node's RAM, or less where its cgroup says so.
// A job's memory limit (Slurm --mem, a container's) is its cgroup's: cgroup v2 memory.max
// or v1 memory.limit_in_bytes, on the process's own cgroup and every cgroup above it. A
// check against the node's RAM alone would let ranks start that the kernel then kills
// for memory, with nothing recorded and no message.
#include <cstdint>
#include <filesystem>
#include <string>

namespace ncclsweep {

struct MemoryLimit {
  std::uint64_t bytes = 0;  // 0: unknown
  std::string what;         // "this host's 23.4 GiB of memory", or the cgroup file and its limit
};

// Read from `root` (/ on a real system; a fake tree in tests): /proc/self/cgroup,
// /proc/self/mountinfo and the cgroup files they lead to, with `node_bytes` the node's RAM.
MemoryLimit memory_limit(const std::filesystem::path& root, std::uint64_t node_bytes);

// This process's, on this machine.
MemoryLimit process_memory_limit();

}  // namespace ncclsweep
