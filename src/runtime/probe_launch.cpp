#include "runtime/probe_launch.hpp"

#include <chrono>
#include <cstdio>

#include "core/errors.hpp"
#include "core/utc_time.hpp"
#include "probe/cpu_probes.hpp"
#include "probe/hog_placement.hpp"
#include "transport/rank_refusal.hpp"

namespace ncclsweep {

std::optional<std::string> cpu_hog_refusal(MpiSession& session, const FaultInjection& fault) {
  if (fault.action != FaultAction::cpu_hog) return std::nullopt;
  const auto gathered = session.gather(nlohmann::json(probe::this_rank_placement(session.rank(), session.host())).dump());
  std::string refusal;
  if (session.rank() == 0) {
    std::vector<probe::RankPlacement> placements;
    for (const auto& text : gathered) placements.push_back(nlohmann::json::parse(text).get<probe::RankPlacement>());
    if (const auto r = probe::cpu_hog_refusal(placements, fault.rank); r.refused()) {
      refusal = UsageError(r.message, r.fix).message();
    }
  }
  return refusal_of_any_rank(session, refusal);
}

std::optional<probe::ProbeDocument> probe_every_rank(MpiSession& session, const probe::ProbeOptions& options,
                                                     const FaultInjection& fault,
                                                     const std::vector<std::string>& command_line) {
  const auto start = std::chrono::system_clock::now();
  const auto steady_start = std::chrono::steady_clock::now();
  probe::ProbeRun run;
  {
    std::optional<CpuHog> hog;
    const bool hogged = fault.action == FaultAction::cpu_hog && fault.rank == session.rank();
    run = probe::run_probes(options, session.local_rank(), [&] { session.barrier(); }, [&](bool on) {
      if (!hogged) return;
      if (on) {
        hog.emplace(probe::allowed_cpus());
      } else {
        hog.reset();
      }
    });
  }
  const double probe_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - steady_start).count();
  std::vector<probe::ProbeRecord>& records = run.records;
  for (auto& r : records) {
    r.rank = session.rank();
    r.host = session.host();
  }
  const auto gathered = session.gather(nlohmann::json(records).dump());
  if (session.rank() != 0) return std::nullopt;
  probe::ProbeDocument document;
  document.command_line = command_line;
  document.start_time = iso_utc(start);
  document.end_time = iso_utc(std::chrono::system_clock::now());
  document.probe_seconds = probe_seconds;  // rank 0's: the ranks probe in step (a barrier before each probe)
  document.phase_seconds = run.phase_seconds;
  document.ranks = session.size();
  document.options = options;
  if (fault.action == FaultAction::cpu_hog) document.cpu_hog_rank = fault.rank;
  for (const auto& text : gathered) {
    for (auto& r : nlohmann::json::parse(text).get<std::vector<probe::ProbeRecord>>()) document.records.push_back(std::move(r));
  }
  probe::judge_hosts(document);
  return document;
}

ProbeOutcome run_probe_launch(MpiSession& session, const probe::ProbeOptions& options, const FaultInjection& fault,
                     const std::vector<std::string>& command_line, const std::string& directory,
                     const std::string& results_root) {
  if (auto refused = cpu_hog_refusal(session, fault)) return ProbeOutcome::refused(*refused);
  const std::string started = compact_utc(std::chrono::system_clock::now());
  const std::string chosen = !directory.empty() ? directory : results_root + "/probe/" + started;
  // The results directory before anything is measured: rank 0 writes it at the end.
  std::string refusal;
  if (session.rank() == 0) {
    try {
      probe::check_probe_directory(chosen);
    } catch (const UsageError& e) {
      refusal = e.message();
    }
  }
  if (auto refused = refusal_of_any_rank(session, refusal)) return ProbeOutcome::refused(*refused);
  ProbeOutcome outcome;
  std::optional<probe::ProbeDocument> document = probe_every_rank(session, options, fault, command_line);
  int status = kExitOk;
  if (document) {
    ProbeWritten& written = outcome.result.emplace();
    written.document = std::move(*document);
    written.directory = chosen;
    probe::write_probe_document(written.document, written.directory);
    if (!written.document.named_hosts.empty()) status = kExitFindings;
  }
  outcome.status = session.max_across_ranks(status);
  return outcome;
}

}  // namespace ncclsweep
