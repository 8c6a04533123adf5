// `ncclsweep doctor`: preflight checks inside the launcher, container and allocation
// a benchmark would use (docs/doctor.md).
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "core/table_or_json.hpp"
#include "report/doctor_report.hpp"
#include "runtime/doctor_launch.hpp"
#include "transport/mpi_session.hpp"

namespace ncclsweep {
namespace {

struct DoctorArgs {
  TableOrJson format = TableOrJson::table;
  bool no_gpu_tools = false;
};

int run_doctor(const DoctorArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  const DoctorOutcome outcome = run_doctor_launch(session, {args.no_gpu_tools}, context.envp);
  print_launch_error(outcome);
  if (outcome.result) print_doctor_report(*outcome.result, args.format, std::cout);
  return outcome.status;
}

}  // namespace

void add_doctor_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* doctor = add_command(app, chosen, args, "doctor",
                                 "Preflight checks on every rank (launch like run); exit 1 on an error-level finding",
                                 run_doctor);
  add_choice(*doctor, "--format", args->format, kTableOrJsonNames, "table or json");
  doctor->add_flag("--no-gpu-tools", args->no_gpu_tools, "Skip NVML and nvidia-smi (clocks, power, ECC, PCIe, NVLink)");
}

}  // namespace ncclsweep
