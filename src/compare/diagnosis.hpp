#pragma once
// `ncclsweep diagnose`'s verdicts: what each layer measured (preflight facts, platform
// signals, slow hosts and links, the workload's calls against the reference) turned into
// one row per layer, each with a verdict and the share of the gap in communication time
// per iteration it explains. Pure: the launch gathers the evidence, printers show the
// result (docs/diagnose.md).
#include <optional>
#include <string>
#include <vector>

#include "compare/acceptance_gate.hpp"
#include "core/finding.hpp"
#include "core/name_table.hpp"
#include "results/search_summary.hpp"

namespace ncclsweep {

struct Comparison;

enum class DiagnoseLayer { preflight, platform, hosts, collectives, settings };
inline constexpr NameTable<DiagnoseLayer, 5> kDiagnoseLayerNames{
    "diagnose layer",
    {{{DiagnoseLayer::preflight, "preflight"},
      {DiagnoseLayer::platform, "platform"},
      {DiagnoseLayer::hosts, "hosts and links"},
      {DiagnoseLayer::collectives, "collectives"},
      {DiagnoseLayer::settings, "NCCL settings"}}}};
inline std::string_view name_of(DiagnoseLayer l) { return kDiagnoseLayerNames.name(l); }

// fine: measured and nothing wrong. cause: measured wrong, and it costs (or, for a
// misconfiguration, is wrong whatever it costs). suspect: a signal that stands out, but
// the time it costs is not shown. unresolved: not measured well enough to say; `settle`
// says what would.
enum class LayerVerdict { fine, cause, suspect, unresolved };
inline constexpr NameTable<LayerVerdict, 4> kLayerVerdictNames{
    "layer verdict",
    {{{LayerVerdict::fine, "fine"},
      {LayerVerdict::cause, "cause"},
      {LayerVerdict::suspect, "suspect"},
      {LayerVerdict::unresolved, "unresolved"}}}};
inline std::string_view name_of(LayerVerdict v) { return kLayerVerdictNames.name(v); }

// A slow host or link as locate named it.
struct SlowSubject {
  std::string kind;                 // "host", "link", ...: locate's finding kind
  std::vector<std::string> hosts;   // one host, or a link's two
  std::vector<int> ranks;
  double ratio = 1;                 // its share of the reference figure (0.05: 20x slower)
};

// Communication time of the workload's calls (or of one call per compared size without a
// workload), here and at the reference, over the calls both sides measured.
struct CommunicationTime {
  double new_ms = 0, reference_ms = 0;
  std::string unit = "ms/iter";     // "ms/iter", "ms/input", or "ms/pass" (one call per size)
  int calls = 0;                    // distinct calls (rows) summed
  double gap_ms() const { return new_ms - reference_ms; }
};

struct DiagnoseEvidence {
  // Preflight: doctor's findings over every rank's facts (warnings and errors count).
  std::vector<doctor::Finding> preflight;
  // Platform: probe's hosts that stand out, as findings; `platform_measured` false when
  // nothing could be judged (one host and no reference probe figures).
  bool platform_measured = false;
  std::string platform_against;     // "the other hosts", "the reference"
  std::vector<doctor::Finding> platform;
  std::vector<std::string> platform_notes;  // what probe said about its own figures (a testing aid that did not take)
  // Hosts and links: locate's findings; empty `hosts_skipped` when it ran.
  std::string hosts_skipped;        // why locate did not run ("one host: ...")
  std::string hosts_stopped;        // why locate stopped before its verdicts (its exit status)
  std::vector<SlowSubject> slow;
  // Below the threshold but within the run's noise (locate's unresolved): named, not
  // judged slow; `hosts_settle` says what would tell them from noise.
  std::vector<SlowSubject> unsettled;
  std::string hosts_settle;
  double hosts_threshold = 0;
  // The workload's calls: the gate against the reference, and the time it judged.
  std::optional<AcceptanceGate> gate;
  std::optional<CommunicationTime> time;
  std::string collectives_note;     // why there is no gate, when there is none
  std::string collectives_next;     // what would give one; empty: a reference that measured the calls
  // NCCL settings (diagnose --sweep FILE): the search of the file's settings at the
  // workload's calls, its job's own settings the baseline. No row without a sweep.
  std::string settings_sweep;       // the sweep file searched; "" : no --sweep
  std::optional<SearchSummary> settings;
  std::string settings_note;        // why there is no search summary, when there is none
};

struct LayerRow {
  DiagnoseLayer layer = DiagnoseLayer::preflight;
  std::string here;                 // the signal measured here
  std::string reference;            // the same signal at the reference (or what it was judged against)
  LayerVerdict verdict = LayerVerdict::fine;
  std::optional<double> share;      // of the gap in time per iteration, 0..1; empty: no time model
  std::optional<double> gap_ms;     // that share in ms (same unit as CommunicationTime)
  std::vector<std::string> hosts;   // the hosts it names
  std::string next;                 // the fix, or the command that settles it
};

// One phase of the launch: the seconds the budget gave it up front, and what it took.
struct PhaseTime {
  std::string phase;                // "preflight", "platform", "hosts and links", "collectives"[, "NCCL settings"]
  double planned_s = 0;
  std::optional<double> used_s;     // empty: not run
};

struct Diagnosis {
  std::vector<LayerRow> rows;       // preflight, platform, hosts and links, collectives[, NCCL settings]
  std::string reference;            // --reference as given
  std::string results;              // the diagnose directory
  double budget_s = 0;
  std::vector<PhaseTime> phases;
  std::optional<AcceptanceGate> gate;
  std::optional<CommunicationTime> time;
  std::vector<std::string> notes;
  // The exit status of a phase that stopped the launch (kExitRuntime, or a signal's
  // 130/143); 0: every phase ran to its end.
  int stopped_status = 0;
  // The stopping phase's status; else kExitOk for PASS, kExitRegression for FAIL,
  // kExitUnresolved otherwise (no gate too).
  int exit_status() const;
};

// Where the calls' repeats came from: --repeats; the reference's rows (within
// kDiagnoseMinRepeats-kDiagnoseMaxRepeats, below); or fewer than those, all the budget holds.
enum class RepeatsSource { flag, reference, budget };
inline constexpr NameTable<RepeatsSource, 3> kRepeatsSourceNames{
    "repeats source",
    {{{RepeatsSource::flag, "--repeats"}, {RepeatsSource::reference, "reference"}, {RepeatsSource::budget, "budget"}}}};
constexpr std::string_view name_of(RepeatsSource source) { return kRepeatsSourceNames.name(source); }

// The calls' repeats without --repeats: the reference's, at least three (a median a
// transient cannot move) and at most ten (more move it little).
inline constexpr int kDiagnoseMinRepeats = 3;
inline constexpr int kDiagnoseMaxRepeats = 10;

// What a diagnose will do, planned before anything runs (`diagnose --plan` prints it; a
// diagnose announces the same budget as its first line).
struct DiagnosePlan {
  std::string reference;            // --reference as given
  double budget_s = 0;
  std::vector<PhaseTime> phases;    // used_s empty: nothing runs
  int ranks = 0;
  int hosts = 0;                    // 1: no tournament (hosts and links is not measured)
  long long measurements = 0;       // the calls' phase: calls x placements x repeats
  int repeats = 0;                  // each call's, interleaved
  RepeatsSource repeats_from = RepeatsSource::reference;
  int reference_repeats = 0;        // the most repeats of a row of the reference
  int wanted_repeats = 0;           // the reference's within 3-10, before the budget (RepeatsSource::budget)
  std::optional<double> per_measurement_s;  // each measurement's cap on timed seconds (empty: --iters)
  std::string settings_sweep;       // --sweep ("": no settings search)
  long long settings_points = 0;    // the sweep's points, baseline included
  std::string settings_method;      // "racing", "coordinate" or "grid"
};

// Slower than the reference by less than this share of its time is no gap to attribute.
inline constexpr double kNoGapShare = 0.01;
// The collectives row is a cause when at least this share of the gap is left unexplained
// by the layers above it, suspect from kSuspectResidual up.
inline constexpr double kCauseResidual = 0.5;
inline constexpr double kSuspectResidual = 0.2;

// The rows from the evidence (docs/diagnose.md, "How a verdict is decided").
Diagnosis attribute(const DiagnoseEvidence& evidence);

// The workload's communication time on both sides of a comparison: calls x time at each
// workload call both sides measured; without a workload, one call per compared
// out-of-place row. Empty when no row has a time on both sides.
std::optional<CommunicationTime> communication_time(const Comparison& comparison,
                                                    const std::optional<WorkloadWeights>& workload);

}  // namespace ncclsweep
