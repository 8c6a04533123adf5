// `ncclsweep doctor`: preflight checks inside the launcher, container and allocation
// a benchmark would use (docs/doctor.md).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "doctor/checks.hpp"
#include "doctor/gpu_probe.hpp"
#include "runtime/preflight.hpp"
#include "runtime/mpi_session.hpp"

namespace ncclsweep {
namespace {

struct DoctorArgs {
  std::string format = "table";
  bool no_gpu_tools = false;
};

int run_doctor(const DoctorArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  doctor::GpuFacts gpu = doctor::probe_gpu(session.local_rank());
  if (!args.no_gpu_tools) doctor::add_gpu_state(gpu);
  const auto mine = doctor::collect_local_facts(session, context.envp, std::move(gpu));
  const auto all = doctor::gather_facts(session, mine);
  int status = kExitOk;
  if (session.rank() == 0) {
    const auto findings = doctor::evaluate(all);
    if (args.format == "json") {
      int errors = 0, warnings = 0;
      for (const auto& f : findings) {
        errors += f.severity == doctor::Severity::error;
        warnings += f.severity == doctor::Severity::warning;
      }
      const nlohmann::json doc{{"errors", errors}, {"warnings", warnings}, {"findings", findings}, {"ranks", all}};
      std::printf("%s\n", doc.dump(2).c_str());
    } else {
      std::printf("# ncclsweep doctor: %d rank(s)\n%s", session.size(), doctor::findings_table(findings).c_str());
    }
    std::fflush(stdout);
    if (doctor::has_error(findings)) status = kExitFindings;
  }
  return session.max_across_ranks(status);
}

}  // namespace

void add_doctor_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* doctor = app.add_subcommand(
      "doctor", "Preflight checks on every rank (launch like run); exit 1 on an error-level finding");
  doctor->add_option("--format", args->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  doctor->add_flag("--no-gpu-tools", args->no_gpu_tools, "Skip NVML and nvidia-smi (clocks, power, ECC, PCIe, NVLink)");
  doctor->callback(
      [args, &chosen] { chosen = [args](CommandContext& context) { return run_doctor(*args, context); }; });
}

}  // namespace ncclsweep
