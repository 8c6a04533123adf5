#pragma once
// The probes on every rank of a session, gathered on rank 0: shared by `ncclsweep probe`
// and `ncclsweep run --probe` (docs/probe.md).
#include <optional>
#include <string>
#include <vector>

#include "core/launch_outcome.hpp"
#include "probe/probe_run.hpp"
#include "measure/fault_injection.hpp"
#include "transport/mpi_session.hpp"

namespace ncclsweep {

// The cpu-hog aid's check on every rank (probe/hog_placement.hpp): a refusal on every rank
// when it cannot slow the rank it names alone (rank 0's says why, the others' is empty);
// nullopt for any other fault.
std::optional<std::string> cpu_hog_refusal(MpiSession& session, const FaultInjection& fault);

// Every rank probes (a cpu-hog fault held for the rank it names); rank 0 gets the
// judged document, the other ranks nothing.
std::optional<probe::ProbeDocument> probe_every_rank(MpiSession& session, const probe::ProbeOptions& options,
                                                     const FaultInjection& fault,
                                                     const std::vector<std::string>& command_line);

// What one probe launch leaves its command to print: rank 0's document and the directory
// it was written to. `status` is the same on every rank: 1 when a host stands out.
struct ProbeWritten {
  probe::ProbeDocument document;
  std::string directory;  // where it was written
};
using ProbeOutcome = LaunchOutcome<ProbeWritten>;

// One `ncclsweep probe`: every rank probes; rank 0 writes the document into `directory`
// (the results root's probe/<UTC start> when empty).
ProbeOutcome run_probe_launch(MpiSession& session, const probe::ProbeOptions& options, const FaultInjection& fault,
                     const std::vector<std::string>& command_line, const std::string& directory,
                     const std::string& results_root);

}  // namespace ncclsweep
