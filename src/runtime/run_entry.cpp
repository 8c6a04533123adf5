#include "runtime/run_entry.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/memory_limit.hpp"
#include "core/run_options.hpp"
#include "core/utc_time.hpp"
#include "plan/engine_support.hpp"
#include "results/results_directory.hpp"
#include "runtime/plan_agreement.hpp"
#include "runtime/probe_launch.hpp"
#include "transport/rank_refusal.hpp"

namespace ncclsweep {
namespace {

// libncclsweep-tuner.so next to this binary, where the build puts it.
std::string tuner_plugin_beside_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : (self.parent_path() / "libncclsweep-tuner.so").string();
}

// --verify-recommendation: rank 0 judges the finished run; exit 1 when a band is slower.
// `error`: rank 0's reason when the run could not be judged.
int verify_after_run(MpiSession& session, const std::string& results_dir, const RecommendedSettings& verify,
                     std::optional<VerificationReport>& report, std::string& error) {
  int status = kExitOk;
  if (session.rank() == 0) {
    try {
      report = check_verification(read_run_document(results_dir), verify.rules);
      status = report->failed() ? kExitRegression : kExitOk;
    } catch (const UsageError& e) {
      error = e.message();
      status = kExitUsage;
    }
  }
  return session.max_across_ranks(status);
}

}  // namespace

std::string read_sweep_text(MpiSession& session, const std::string& path) {
  std::string text, error, fix = "check the path";
  if (session.rank() == 0) {
    try {
      text = read_input_file(path, kSettingsFileInput);
    } catch (const UsageError& e) {
      error = e.what();
      fix = e.fix();
    }
  }
  if (session.max_across_ranks(error.empty() ? 0 : 1) != 0) {
    throw UsageError(error.empty() ? "rank 0 cannot read the sweep file" : error, fix);
  }
  return session.broadcast_string(text);
}


RankLayout rank_layout(MpiSession& session) {
  RankLayout layout;
  layout.ranks = session.size();
  layout.most_on_a_host = session.max_across_ranks(session.local_rank()) + 1;
  const int per_node = layout.most_on_a_host;
  const bool block = session.max_across_ranks(session.local_rank() != session.rank() % per_node ? 1 : 0) == 0;
  layout.per_node = block && session.size() % per_node == 0 ? per_node : 0;
  const MemoryLimit memory = process_memory_limit();  // the job's cgroup limit where it has one
  layout.host_memory = memory.bytes;
  layout.host_memory_what = memory.what;
  return layout;
}

RunOutcome run_run_launch(MpiSession& session, const RunFlags& flags, const std::vector<std::string>& command_line,
                          char** envp) {
  const RankLayout layout = rank_layout(session);
  LaunchRequest request;
  std::optional<RecommendedSettings> verify;
  // The spec and plan are the same on every rank, so every rank fails alike and exits.
  std::string error;
  try {
    if (!flags.verify_file.empty()) {
      verify = read_recommendation(flags.verify_file,
                                   flags.tuner_plugin.empty() ? tuner_plugin_beside_binary() : flags.tuner_plugin);
    }
    RunInputs inputs;
    if (!flags.sweep_file.empty() && !verify) inputs.sweep_text = read_sweep_text(session, flags.sweep_file);
    inputs.verify = verify ? &*verify : nullptr;
    request = build_run_plan(flags, inputs, layout);
  } catch (const UsageError& e) {
    error = e.message();
  }
  // Files a workload names are read on every rank: all stop together if any cannot.
  if (auto refusal = refusal_of_any_rank(session, error)) {
    return RunOutcome::refused(*refusal);
  }
  // ... and each rank planned from what it read: all stop together unless every plan is rank 0's.
  if (const std::string differ = plan_disagreement(session, canonical_plan(request)); !differ.empty()) {
    return RunOutcome::refused(session.rank() == 0 ? differ : std::string());
  }
  if ((verify || flags.probe) && request.output_dir.empty()) {
    // The check afterwards reads the run's directory: fix its name now, on every rank alike.
    request.output_dir = session.broadcast_string(
        session.rank() == 0
            ? default_results_dir(flags.results_root, request.spec.name, compact_utc(std::chrono::system_clock::now())).string()
            : std::string());
  }
  request.command_line = command_line;
  request.envp = envp;
  std::optional<probe::ProbeDocument> probed;
  if (flags.probe) {
    if (auto refused = cpu_hog_refusal(session, request.fault)) return RunOutcome::refused(*refused);
    probe::ProbeOptions options = probe::ProbeOptions::quick();
    options.gpu = request.spec.engine != EngineKind::mpi;
    probed = probe_every_rank(session, options, request.fault, command_line);
    request.fault = FaultInjection{};  // cpu-hog is over with the probes
  }
  RunOutcome outcome = RunOutcome::with_status(run_launch(session, request));
  RunAfterwards afterwards;
  if (probed) {
    afterwards.probe_directory = (std::filesystem::path(request.output_dir) / "probe").string();
    probe::write_probe_document(*probed, afterwards.probe_directory);
    afterwards.probe = std::move(probed);
  }
  if (verify && outcome.status == kExitOk) {
    outcome.status = verify_after_run(session, request.output_dir, *verify, afterwards.verification, outcome.error);
  }
  if (session.rank() == 0) outcome.result = std::move(afterwards);
  return outcome;
}

}  // namespace ncclsweep
