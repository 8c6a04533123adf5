#pragma once
// What locate and soak share: both measure in the MPI ranks themselves (no workers,
// since they set no process-cached NCCL variable) and split the world by host.
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/run_options.hpp"
#include "engine/engine.hpp"
#include "transport/rank_group.hpp"

namespace ncclsweep {

// Every rank's host name, on every rank, in rank order.
std::vector<std::string> rank_hosts(RankGroup& ranks);

// How sub-communicators are made, and the world's config that decides it.
// NCCL shares the parent's resources (channels, buffers, proxy) with the children of
// ncclCommSplit when the PARENT was initialised with splitShare = 1 (2.18 and later;
// the config passed to the split itself does not decide it), which makes a split far
// cheaper than a fresh init: the 63 rounds of 64 hosts are mostly splits.
struct SplitMode {
  std::vector<ConfigSetting> world_config;
  std::string description;  // run.json "split"
};
SplitMode split_mode(EngineKind kind, const Engine& engine);

// A measuring loop's failure on one rank: printed once, with the rank, then every rank is
// stopped (the others may be inside a collective with it). A RuntimeFailure exits 3, a
// UsageError 2; anything else goes on to the top-level handler.
[[noreturn]] void stop_every_rank(RankGroup& ranks, std::exception_ptr failure);

}  // namespace ncclsweep
