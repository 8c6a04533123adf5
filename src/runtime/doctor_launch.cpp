#include "runtime/doctor_launch.hpp"

#include "core/errors.hpp"
#include "doctor/gpu_probe.hpp"
#include "runtime/preflight.hpp"

namespace ncclsweep {

DoctorOutcome run_doctor_launch(MpiSession& session, const DoctorFlags& flags, char** envp) {
  doctor::GpuFacts gpu = doctor::probe_gpu(session.local_rank());
  if (!flags.no_gpu_tools) doctor::add_gpu_state(gpu);
  doctor::RankFacts mine = doctor::collect_local_facts(session, envp, std::move(gpu));
  doctor::add_nccl_versions(mine);
  std::vector<doctor::RankFacts> all = doctor::gather_facts(session, mine);
  DoctorOutcome outcome;
  int status = kExitOk;
  if (session.rank() == 0) {
    doctor::DoctorReport& report = outcome.result.emplace();
    report.findings = doctor::evaluate(all);
    report.ranks = std::move(all);
    if (doctor::has_error(report.findings)) status = kExitFindings;
  }
  outcome.status = session.max_across_ranks(status);
  return outcome;
}

}  // namespace ncclsweep
