#pragma once
// What each rank knows about itself, gathered to rank 0 for run.json.
#include <map>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// NCCL_* variables and the launcher's rank variables (Open MPI, PMIx, Slurm,
// CUDA_VISIBLE_DEVICES) from an envp-style array.
std::map<std::string, std::string> captured_environment(char** envp);

class RankGroup;

// Every rank's entry, in rank order, on rank 0 (empty elsewhere).
std::vector<RankEntry> gather_rank_entries(RankGroup& session, const DeviceDescription& device, char** envp);

// Ranks of one host that drive the same GPU (same PCI bus id); empty when none do.
std::vector<std::string> shared_gpu_conflicts(const std::vector<RankEntry>& ranks);

// The distinct hosts, in order of first appearance.
std::vector<std::string> distinct_hosts(const std::vector<RankEntry>& ranks);

}  // namespace ncclsweep
