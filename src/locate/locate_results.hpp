#pragma once
// A locate's results directory (run.json with "kind": "locate", records.jsonl with one
// MeasurementRecord a line) and its printed forms: the findings table, JSON, and the host x
// host heat map as SVG. The verdicts are made again from the records when read, so a
// report shows exactly what the records support.
#include <filesystem>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/report_format.hpp"
#include "core/run_options.hpp"
#include "core/table_or_json.hpp"
#include "locate/locate_plan.hpp"
#include "locate/phase_runner.hpp"
#include "locate/verdicts.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep::locate {

struct LocateDocument {
  std::string version;
  EngineKind engine = EngineKind::mpi;
  std::string split_mode;  // how the steps' sub-communicators were made (MPI_Comm_split, ncclCommSplit shared or not)
  std::string start_time, end_time;
  std::vector<std::string> command_line;
  std::vector<std::string> rank_hosts;  // the host of every rank, in rank order
  LocateOptions options;
  std::string fault;                    // --inject-fault text, when a testing aid was on
  std::optional<ReferenceFigures> reference;  // --reference: what the verdicts were judged against
  std::vector<StepTime> steps;
  std::vector<std::string> notes;
};

// Creates `dir` for a new locate and opens its records.jsonl, before anything is
// measured: a directory that holds a run (run.json or records.jsonl) or a planted link
// is refused (UsageError). The launch appends each step's measurements as it ends, so a
// killed locate keeps what it measured.
RecordsJournal open_locate_results(const std::filesystem::path& dir);
// run.json, once every measurement is in records.jsonl and the verdicts are made.
void write_locate_document(const std::filesystem::path& dir, const LocateDocument& document, const Verdicts& verdicts);

// True when `dir` holds a run.json written by locate.
bool is_locate_results(const std::filesystem::path& dir);

struct LocateResults {
  LocateDocument document;
  std::vector<MeasurementRecord> measurements;
};
LocateResults read_locate_results(const std::filesystem::path& dir);  // throws UsageError

// The findings (kind, ranks, hosts, how slow, evidence), then what is unresolved (below the
// threshold within noise) and, for each phase whose noise cannot tell the threshold, how
// far below it can and how much longer repeats would do (with `iters`, the --iters the run
// used: the --iters that would); "nothing slow" when nothing is below the threshold.
void print_findings_table(std::ostream& out, const HostLayout& layout, const Verdicts& verdicts, bool markdown,
                          int iters = 0);
// One line per phase and subject kind whose noise cannot tell `verdicts.threshold`
// ("host phase: tells a host from noise only below 0.70x (noise 12%) ..."); none when all can.
std::vector<std::string> resolution_notes(const Verdicts& verdicts, int iters);
// `reference`: the --reference directory the verdicts were judged against, "" for none.
nlohmann::json verdicts_json(const HostLayout& layout, const Verdicts& verdicts, double threshold,
                             const std::string& reference = "");
// Host x host heat map: each cell the pair's worst share of its reference, the diagonal
// the host's own; red below the threshold.
void print_heat_map_svg(std::ostream& out, const HostLayout& layout, const Verdicts& verdicts, double threshold);
void print_records_csv(std::ostream& out, const HostLayout& layout, const std::vector<MeasurementRecord>& measurements);

// Prometheus text (report/prometheus_text.hpp): host-phase busbw per host, one gauge per finding.
void print_locate_prometheus(std::ostream& out, const HostLayout& layout, const std::vector<MeasurementRecord>& measurements,
                             const Verdicts& verdicts);

// What one locate launch found, as its command prints it.
struct LocateSummary {
  HostLayout layout;
  Verdicts verdicts;
  double threshold = 0;
  int passes = 1;
  int iters = 0;
  std::string reference;  // the --reference source; "" for the median of the hosts
  std::string directory;  // where its results are
  std::vector<StepTime> steps;
};
// json: the verdicts, the results directory and the steps as one document on stdout;
// table: the findings table on stdout, the pairs' round times and the directory as notes
// on stderr. `document` stands for stdout (diagnose shows locate's table among its
// phases' output on stderr).
void print_locate_summary(const LocateSummary& summary, TableOrJson format, std::ostream& document = std::cout);

// `ncclsweep report DIR --format table|md|csv|json|prom|svg` for a locate's directory.
void print_locate_report(const std::filesystem::path& dir, ReportFormat format, std::ostream& out);

}  // namespace ncclsweep::locate
