#include "runtime/doctor_launch.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

#include "core/errors.hpp"
#include "doctor/checks.hpp"
#include "doctor/gpu_probe.hpp"
#include "runtime/preflight.hpp"

namespace ncclsweep {

int run_doctor_launch(MpiSession& session, const DoctorFlags& flags, char** envp, std::ostream& out) {
  doctor::GpuFacts gpu = doctor::probe_gpu(session.local_rank());
  if (!flags.no_gpu_tools) doctor::add_gpu_state(gpu);
  doctor::RankFacts mine = doctor::collect_local_facts(session, envp, std::move(gpu));
  doctor::add_nccl_versions(mine);
  const auto all = doctor::gather_facts(session, mine);
  int status = kExitOk;
  if (session.rank() == 0) {
    const auto findings = doctor::evaluate(all);
    if (flags.json) {
      int errors = 0, warnings = 0;
      for (const auto& f : findings) {
        errors += f.severity == doctor::Severity::error;
        warnings += f.severity == doctor::Severity::warning;
      }
      const nlohmann::json doc{{"errors", errors}, {"warnings", warnings}, {"findings", findings}, {"ranks", all}};
      out << doc.dump(2) << "\n";
    } else {
      out << "# ncclsweep doctor: " << session.size() << " rank(s)\n" << doctor::findings_table(findings);
    }
    out.flush();
    if (doctor::has_error(findings)) status = kExitFindings;
  }
  return session.max_across_ranks(status);
}

}  // namespace ncclsweep
