#pragma once
// A soak's results directory: run.json ("kind": "soak": options, the rank -> host map,
// each launch of the timeline, the verdicts) rewritten atomically, and records.jsonl
// with one window a line, appended and synced as each window ends. Verdicts are made
// again from the windows when read, so a report shows exactly what they support.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "core/table_or_json.hpp"
#include "core/report_format.hpp"
#include "core/run_options.hpp"
#include "soak/soak_runner.hpp"
#include "soak/soak_verdicts.hpp"
#include "soak/soak_window.hpp"

namespace ncclsweep::soak {

struct LaunchEntry {
  int launch = 1;
  std::string start_utc, end_utc;
  std::string end;  // "running" | "duration" | "stopped"
};

struct SoakDocument {
  std::string version;
  EngineKind engine = EngineKind::mpi;
  std::vector<std::string> command_line;
  std::vector<std::string> rank_hosts;  // every rank's host, in rank order
  SoakOptions options;
  std::string fault;                    // --inject-fault text, when the testing aid was on
  std::string metrics_file;             // --metrics-file, when given
  std::vector<LaunchEntry> launches;
};

std::vector<std::string> host_names(const SoakDocument& document);  // distinct, in rank order

// The options as run.json holds them (and as rank 0 hands them to every rank).
nlohmann::json options_json(const SoakOptions& options);
SoakOptions options_from(const nlohmann::json& j);

// Creates `dir`, refusing one that holds a run.json.
void create_soak_results(const std::filesystem::path& dir);
// run.json: the document, the count of `windows` and their verdicts (judge_document's).
void write_soak_document(const std::filesystem::path& dir, const SoakDocument& document,
                         const std::vector<SoakWindow>& windows, const SoakVerdicts& verdicts);

bool is_soak_results(const std::filesystem::path& dir);

struct SoakResults {
  SoakDocument document;
  std::vector<SoakWindow> windows;
  std::uintmax_t complete_bytes = 0;  // records.jsonl up to its last complete window
};
// Throws UsageError naming the file and line of anything unreadable; a torn last line
// (a killed writer) is left out.
SoakResults read_soak_results(const std::filesystem::path& dir);

SoakVerdicts judge_document(const SoakDocument& document, const std::vector<SoakWindow>& windows);

// What one soak launch found, as its command prints it.
struct SoakSummary {
  std::vector<std::string> hosts;
  SoakVerdicts verdicts;
  std::string directory;
  std::optional<int> stopped_after;  // the last window, when a signal stopped the soak
};
// json: the verdicts and the results directory as one document on stdout; table: the
// findings table on stdout, the stop and the directory as notes on stderr.
void print_soak_summary(const SoakSummary& summary, TableOrJson format);

// The findings: host, kind, series, from when, how much, evidence; "nothing found" when none.
void print_verdicts_table(std::ostream& out, const std::vector<std::string>& hosts, const SoakVerdicts& verdicts);
// Busbw per host (a panel per test, the world's dashed), the SM clocks, and shading
// from where each verdict starts.
void print_timeline_svg(std::ostream& out, const SoakDocument& document, const std::vector<SoakWindow>& windows,
                        const SoakVerdicts& verdicts);

// `ncclsweep report DIR --format table|json|prom|svg` for a soak's directory.
void print_soak_report(const std::filesystem::path& dir, ReportFormat format, std::ostream& out);

}  // namespace ncclsweep::soak
