#pragma once
// One `ncclsweep run` on this rank: rank 0 reads the sweep file (and the recommendation
// under --verify-recommendation) for every rank, every rank plans alike and agrees on a
// refusal, the probes under --probe, the launch, and the verification after it. The CLI
// only parses flags into a RunFlags.
#include <optional>
#include <string>
#include <vector>

#include "core/launch_outcome.hpp"
#include "probe/probe_run.hpp"
#include "recommend/verification.hpp"
#include "transport/mpi_session.hpp"
#include "runtime/run_plan.hpp"

namespace ncclsweep {

// Where the ranks sit (collective). Ranks per node counts only when ranks sit in equal
// blocks per node (rank r on local rank r % n): intra-node and inter-node groups need it.
RankLayout rank_layout(MpiSession& session);

// Rank 0 reads the sweep file; every rank gets its text (only rank 0 needs the path).
// Collective; throws UsageError on every rank when rank 0 cannot read it.
std::string read_sweep_text(MpiSession& session, const std::string& path);

// What a run leaves its command to show after the tables it streamed (rank 0): the
// platform figures under --probe, and the verdict of --verify-recommendation.
struct RunAfterwards {
  std::optional<probe::ProbeDocument> probe;
  std::string probe_directory;
  std::optional<VerificationReport> verification;
};
using RunOutcome = LaunchOutcome<RunAfterwards>;

// The status is the same on every rank (README: exit codes).
RunOutcome run_run_launch(MpiSession& session, const RunFlags& flags, const std::vector<std::string>& command_line,
                          char** envp);

}  // namespace ncclsweep
