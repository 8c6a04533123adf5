#pragma once
// One rank's whole probe, and the document rank 0 writes: probe.json (everything) and
// records.jsonl (one record a line) in the results directory (docs/probe.md).
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "probe/host_summary.hpp"
#include "probe/probe_options.hpp"
#include "probe/probe_record.hpp"

namespace ncclsweep::probe {

// Every probe on this rank, in order; `barrier` is called before each so every rank
// measures the same probe at the same time (the all-core clock of one rank would
// otherwise be disturbed by another rank's map/unmap on the same machine).
// `disturb(true)` and `disturb(false)` bracket the core-clock and stall probes (where the
// cpu-hog testing aid is meant to show); the map/unmap, NUMA and GPU probes run after.
// Each phase's wall seconds come back too, so the probe's own cost can be read per part.
struct ProbeRun {
  std::vector<ProbeRecord> records;
  std::map<std::string, double> phase_seconds;  // "core_clock", "stalls", "host_map_unmap", "numa", "gpu"
};
ProbeRun run_probes(const ProbeOptions& options, int local_rank, const std::function<void()>& barrier,
                    const std::function<void(bool)>& disturb = [](bool) {});

struct ProbeDocument {
  int schema_version = 1;
  std::vector<std::string> command_line;
  std::string start_time, end_time;
  double probe_seconds = 0;  // the probes' own wall time, from the first to the last (no launch, no init)
  std::map<std::string, double> phase_seconds;  // rank 0's, per phase (ProbeRun)
  std::vector<std::string> hosts;  // in rank order of first appearance
  int ranks = 0;
  ProbeOptions options;
  std::vector<ProbeRecord> records;
  std::vector<doctor::Finding> findings;
  std::vector<std::string> named_hosts;
  int cpu_hog_rank = -1;           // the cpu-hog testing aid's rank; -1 without it
  std::vector<std::string> notes;  // what the reader must know besides the findings
};

// Fills hosts, findings and named_hosts from the records (outliers among the hosts), and
// a note when the cpu-hog aid did not make its rank's host stand out: on a loaded machine
// the kernel's group scheduling can starve the other hosts' ranks with it, and a probe that
// names nothing then says nothing about the aid's fault.
void judge_hosts(ProbeDocument& document);

// Writes probe.json and records.jsonl into `directory` (created); UsageError when it
// cannot be written.
void write_probe_document(const ProbeDocument& document, const std::filesystem::path& directory);

// Before probing: `directory` is created and probe.json can be written there. UsageError
// when it is not a directory, cannot be written, or holds another command's results (a
// records.jsonl or run.json beside no probe.json), which the probe would replace; an
// earlier probe's directory is probed again.
void check_probe_directory(const std::filesystem::path& directory);

// Whether `path` is a probe results directory (or its probe.json).
bool is_probe_results(const std::filesystem::path& path);
// Reads one; UsageError naming the file when it is not a probe document.
ProbeDocument read_probe_document(const std::filesystem::path& path);

// The per-host table: median over the host's ranks of the main figures, the worst rank
// of each named host, what was skipped and why, the hosts named and the findings.
std::string probe_report(const ProbeDocument& document);

}  // namespace ncclsweep::probe
