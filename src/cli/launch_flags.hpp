#pragma once
// The flags of a launch that measures on the whole allocation and keeps a results
// directory (locate, soak): which engine, what goes to stdout, where results go, and the
// testing aid; with the one way their launch requests take them.
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/table_or_json.hpp"
#include "core/units.hpp"
#include "runtime/engine_registry.hpp"
#include "transport/mpi_session.hpp"

namespace ncclsweep {

struct LaunchFlags {
  std::optional<EngineKind> engine;
  TableOrJson format = TableOrJson::table;
  std::string output;
  std::string results_root = "results";
  std::string fault;
};

// The fixed tests locate and soak time (measure/fixed_test.hpp): their sizes, and the
// untimed and timed calls of each.
struct FixedTestFlags {
  std::string sizes;
  int warmup = 0;
  int iters = 10;
};

// --sizes, --warmup and --iters; the help says when the command warms up and what a
// timed round is to it.
inline void add_fixed_test_flags(CLI::App& cmd, FixedTestFlags& flags, const std::string& warmup_help,
                                 const std::string& iters_help) {
  cmd.add_option("--sizes", flags.sizes, "Total sizes per test (a few large ones)")->capture_default_str();
  cmd.add_option("--warmup", flags.warmup, warmup_help)->check(finite_range(0, 1000))->capture_default_str();
  cmd.add_option("--iters", flags.iters, iters_help)->check(finite_range(1, 100000))->capture_default_str();
}

// The options of a locate or a soak take the fixed tests' flags alike.
template <typename Options>
void fill_fixed_tests(Options& options, const FixedTestFlags& flags) {
  options.sizes = parse_size_list(flags.sizes);
  options.warmup = flags.warmup;
  options.iters = flags.iters;
}

// `command` names the default directory, RESULTS_ROOT/<command>/<UTC start>.
inline void add_launch_flags(CLI::App& cmd, LaunchFlags& flags, const std::string& command, const std::string& fault_help) {
  add_choice(cmd, "--engine", flags.engine, kEngineNames, "nccl (GPU; the default when built) or mpi (host buffers)");
  add_choice(cmd, "--format,-f", flags.format, kTableOrJsonNames, "table or json (stdout)");
  cmd.add_option("-o,--output", flags.output, "Results directory (default: RESULTS_ROOT/" + command + "/<UTC start>)");
  cmd.add_option("--results-root", flags.results_root, "Where default results directories go")->capture_default_str();
  cmd.add_option("--inject-fault", flags.fault, fault_help);
}

// Every launch request names these fields alike.
template <typename Request>
void fill_launch_request(Request& request, const LaunchFlags& flags, const CommandContext& context) {
  request.engine = flags.engine.value_or(default_engine());
  request.fault = flags.fault;
  request.output_dir = flags.output;
  request.results_root = flags.results_root;
  request.format = flags.format;
  request.command_line = {context.argv, context.argv + context.argc};
}

// Runs `parse` (flags into typed options) on every rank. Its UsageError is the same on
// every rank, so rank 0 prints it and all stop together: false when the launch must stop.
template <typename Parse>
bool parsed_on_every_rank(const MpiSession& session, Parse&& parse) {
  try {
    parse();
    return true;
  } catch (const UsageError& e) {
    if (session.rank() == 0) print_error(e.message());
    return false;
  }
}

// A launched command's body: `parse` fills the request on every rank (a refusal stops all
// ranks together), the shared flags follow, `launch` measures and returns its outcome, and
// `present` shows the typed result where there is one (rank 0).
template <typename Request, typename Parse, typename Launch, typename Present>
int launch_and_present(CommandContext& context, const LaunchFlags& flags, Parse&& parse, Launch&& launch,
                       Present&& present) {
  MpiSession session(&context.argc, &context.argv);
  Request request;
  if (!parsed_on_every_rank(session, [&] { parse(request); })) return kExitUsage;
  fill_launch_request(request, flags, context);
  const auto outcome = launch(session, request);
  print_launch_error(outcome);
  if (outcome.result) present(*outcome.result, request.format);
  return outcome.status;
}

}  // namespace ncclsweep
