#pragma once
// Running the checks inside a launch: every rank collects its facts, rank 0 gathers
// and judges them. Both calls are collective over the session's ranks.
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "doctor/rank_facts.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {
class RankGroup;
}

namespace ncclsweep::doctor {

// This rank's facts; `gpu` is the GPU part the caller probed (bus id, nvidia-smi). NCCL's
// versions are the caller's to add (doctor: add_nccl_versions; run: the engine's).
RankFacts collect_local_facts(const RankGroup& session, char** envp, GpuFacts gpu);

// Every rank's facts in rank order on rank 0; empty elsewhere.
std::vector<RankFacts> gather_facts(RankGroup& session, const RankFacts& mine);

// The checks that cost no more than reading /proc and /sys (no nvidia-smi), for
// `ncclsweep run`: findings on rank 0, empty elsewhere. `device` is what the engine drives
// (no GPU and no NCCL versions for the mpi engine).
std::vector<Finding> cheap_checks(RankGroup& session, char** envp, const DeviceDescription& device);

}  // namespace ncclsweep::doctor

namespace ncclsweep {

// The findings as the run shows them ("preflight: warning CHECK ranks 0-3: EVIDENCE"):
// warnings and errors one line each, the informational ones counted (run.json has all).
std::vector<std::string> preflight_lines(const std::vector<doctor::Finding>& findings);

}  // namespace ncclsweep
