#include "runtime/run_start.hpp"

#include "core/errors.hpp"

#include "runtime/launch_document.hpp"
#include "runtime/launch_state.hpp"
#include "transport/rank_group.hpp"
#include "runtime/preflight.hpp"
#include "runtime/rank_environment.hpp"
#include "runtime/run_fingerprint.hpp"

namespace ncclsweep {

bool begin_run(LaunchState& state, const DeviceDescription& device) {
  RankGroup& session = state.ranks;
  const LaunchRequest& request = state.request;
  RunStart start;
  start.start = state.start;
  start.device = device;
  start.ranks = gather_rank_entries(session, device, request.envp);
  const std::vector<std::string> conflicts =
      state.leader ? shared_gpu_conflicts(start.ranks) : std::vector<std::string>{};
  const bool refused = !conflicts.empty() && !request.allow_shared_gpu;
  if (session.max_across_ranks(refused ? 1 : 0) != 0) {
    // only rank 0 holds the conflicts
    if (state.leader) {
      state.refuse(message_with_fix(conflicts.front() + " (" + std::to_string(conflicts.size()) + " conflict(s))",
                                    "give each rank its own GPU (one rank per GPU), or pass --allow-shared-gpu"));
    }
    return false;
  }
  std::string refusal;
  if (state.leader) {
    std::vector<std::string> rank_hosts;
    for (const RankEntry& r : start.ranks) rank_hosts.push_back(r.host);
    start.fingerprint = run_fingerprint(request.spec, request.groups, rank_hosts);
    if (!request.resume_dir.empty()) {
      const RunSettings now{request.spec.engine, request.spec.warmup, request.spec.iters, request.spec.check};
      refusal = resume_refusal(state.results_dir, state.earlier.document.fingerprint, start.fingerprint, request.force,
                               resume_changes(state.earlier.document, now, rank_hosts));
      if (refusal.empty() && !request.force) {
        refusal = foreign_records_refusal(state.results_dir, state.earlier.recorded.records, request);
      }
    }
  }
  if (session.max_across_ranks(refusal.empty() ? 0 : 1) != 0) {
    state.refuse(refusal);
    return false;
  }
  start.preflight = doctor::cheap_checks(session, request.envp, device);  // collective
  if (!state.leader) return true;
  for (const std::string& line : preflight_lines(start.preflight)) state.log(LogLevel::info, line);
  start.mpi_library_version = session.library_version();
  if (!conflicts.empty()) start.shared_gpu_conflict = conflicts.front();
  state.open_document(start_run_document(request, start, state.earlier));
  return true;
}

}  // namespace ncclsweep
