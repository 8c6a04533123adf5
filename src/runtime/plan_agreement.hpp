#pragma once
// Every rank plans the run itself (a workload or sizes file is read on every rank), and
// every rank must then measure exactly what rank 0 measures: a rank that planned other
// calls (it read another copy of a relative file, from another working directory) would
// wait in a collective no other rank joins, with no bound on the mpi engine. So the ranks
// compare their plans before anything else and stop together, naming the difference.
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/launch.hpp"

namespace ncclsweep {

class RankGroup;

// The plan as every rank must hold it, typed fields in their one serialisation: the spec,
// the planned calls, the isolation groups and their points, the workload, the baseline and
// the testing aids. Paths that only rank 0 uses (the results directory) are left out.
nlohmann::json canonical_plan(const LaunchRequest& request);

// "" when `mine` equals `leader`; else the first difference as "PATH: rank 0 has X, this
// rank has Y" (PATH like spec.sizes[3] or plan.calls[12][3]; long values cut short).
std::string first_plan_difference(const nlohmann::json& leader, const nlohmann::json& mine);

// Collective: a digest of every rank's canonical plan against rank 0's (the plans
// themselves travel only when they differ). "" on every rank when all agree; else, on
// every rank, the refusal rank 0's command prints: which ranks (and hosts) differ, and where.
std::string plan_disagreement(RankGroup& ranks, const nlohmann::json& plan);

}  // namespace ncclsweep
