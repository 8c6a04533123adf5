#pragma once
// The acceptance gate: does NEW reach `target` x REFERENCE (95% of the reference, the bar
// a vendor certifies at), once NEW's own noise is taken into account? Pure, no I/O
// (docs/compare.md, "Acceptance gate").
//
// Every pooled row is one piece of evidence about the same question, so rows that all
// moved the same way count together even where each row's band alone is too wide to
// judge it. The rows' noise is not taken as independent: a share of it
// (kSharedNoiseShare) moves every row of a launch at once (clocks, load, the launch's
// NCCL choices), and that part does not shrink however many rows there are; only
// repeats of NEW shrink it.
//
// The reference is the bar: a clean figure's noise in it is part of the bar, as with any
// published reference. Where the reference's own measurement shows more noise than a
// clean figure (its repeats or iterations spread wider than the noise model's relative
// part), that excess widens the interval too: a disturbed reference cannot certify a run,
// and no repeat of NEW narrows that part.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/name_table.hpp"
#include "results/record.hpp"

namespace ncclsweep {

struct Comparison;

// The bar: NEW must reach this share of the reference (`compare --target`).
inline constexpr double kDefaultTarget = 0.95;
// The interval is two-sided at 95% confidence (1.96 standard errors each way): PASS needs
// its lower end at or above the target, FAIL its upper end below it, so each is wrong at
// most 2.5% of the time.
inline constexpr double kGateConfidence = 0.95;
inline constexpr double kGateZ = 1.959963985;
// The repeats suggested for an UNRESOLVED gate decide it nine times in ten (the normal
// quantile of 0.9 added to kGateZ), were the ratio where it is now.
inline constexpr double kGatePowerZ = 1.281551566;
// The share of each row's noise variance taken to move every row of a launch together.
// On 2x H200 the rows of two nccl-tests launches moved together by at most 0.54% while
// single rows moved by up to 8% (tests/data/nccl-tests/): half is well above that, and
// keeps a uniform shift as evidence without trusting rows to be independent.
inline constexpr double kSharedNoiseShare = 0.5;
// Repeats beyond this are not suggested: the ratio is then at the target within noise.
inline constexpr int kMaxSuggestedRepeats = 1000;

enum class GateVerdict { pass, fail, unresolved };
inline constexpr NameTable<GateVerdict, 3> kGateVerdictNames{
    "acceptance verdict",
    {{{GateVerdict::pass, "PASS"}, {GateVerdict::fail, "FAIL"}, {GateVerdict::unresolved, "UNRESOLVED"}}}};
inline std::string_view name_of(GateVerdict v) { return kGateVerdictNames.name(v); }

// How the rows are weighed against each other: by the workload's time per iteration
// (the time a training step spends in that call on the reference), or, without a
// workload, by how precisely each row's ratio is known (1 / its variance, both sides).
enum class GateWeighting { precision, workload_time };
inline constexpr NameTable<GateWeighting, 2> kGateWeightingNames{
    "gate weighting", {{{GateWeighting::precision, "precision"}, {GateWeighting::workload_time, "workload time"}}}};
inline std::string_view name_of(GateWeighting w) { return kGateWeightingNames.name(w); }

// One row as evidence. Noise is relative (a standard deviation of the figure divided by
// the figure, 0.02 = 2%).
struct GateRow {
  double ratio = 1;              // NEW / REFERENCE busbw (> 0)
  double new_sigma = 0;          // one measurement of NEW
  int new_repeats = 1;           // measurements NEW's figure is the median of
  double reference_sigma = 0;    // the reference's figure as it is: weighs the row
  double reference_excess = 0;   // the reference's figure beyond a clean one's: widens the interval
  double time_weight = 0;        // workload_time weighting: calls x time per call (any unit, > 0)
};

struct GateSettings {
  double target = kDefaultTarget;
  GateWeighting weighting = GateWeighting::precision;
  double shared_share = kSharedNoiseShare;
};

struct AcceptanceGate {
  GateVerdict verdict = GateVerdict::unresolved;
  double target = kDefaultTarget;
  double confidence = kGateConfidence;
  double shared_share = kSharedNoiseShare;
  GateWeighting weighting = GateWeighting::precision;
  std::string workload;          // the workload's source, when weighted by its time
  std::size_t rows = 0;          // rows pooled; 0: nothing to judge (UNRESOLVED)
  double ratio = 0;              // NEW / REFERENCE, the rows' weighted geometric mean
  double lower = 0, upper = 0;   // the interval at `confidence`
  int new_repeats = 1;           // the fewest repeats among NEW's pooled rows
  // UNRESOLVED: the repeats of every NEW measurement (`run --repeats N`) with which a
  // rerun decides at `confidence` nine times in ten, were the ratio what it is now.
  // Empty: more than kMaxSuggestedRepeats (the ratio sits on the target), the
  // reference's excess noise alone spans the target (reference_too_noisy), or no rows.
  std::optional<int> repeats_to_settle;
  bool reference_too_noisy = false;
  std::size_t wrong_rows = 0;      // rows NEW got wrong: FAIL, however fast the others
  std::vector<std::string> notes;  // rows left out, workload calls without a row

  // "-> FAIL: acceptance 0.940 of reference (95% interval 0.912-0.969), below the target 0.95"
  std::string summary_tail() const;
  // The last line of every compare format: verdict, ratio, interval, what was pooled and
  // how, and for UNRESOLVED the repeats that would settle it.
  std::string line() const;
};

// The relative standard deviation of one measurement of a figure whose noise band (as
// compare draws it, a half-width of about two standard deviations) is `band_relative` of
// it; with repeats, also at least their range (max - min over the median) over d2(n),
// the range of n normal draws in standard deviations.
double one_measurement_sigma(double band_relative, int repeats, double range_relative);

// The relative standard deviation of a median of `repeats` measurements of `sigma` each.
double median_sigma(double sigma, int repeats);

// The gate over these rows (empty rows: UNRESOLVED with nothing pooled). Pure.
AcceptanceGate evaluate_gate(std::span<const GateRow> rows, const GateSettings& settings);

// How far the reference's figure is noisier than a clean one: the relative standard
// deviation of one measurement as measured (`measured_sigma`) beyond what the noise model
// gives a clean figure (`clean_sigma`), for a median of `repeats`; 0 when within it.
double excess_sigma(double measured_sigma, double clean_sigma, int repeats);

struct SideRow;
// Whether a side's row is the measurement of this workload call: an ncclsweep row by the
// size it asked for and the communicator it ran on, an nccl-tests row (the world) by size;
// out-of-place rows only.
bool is_workload_call(const SideRow& row, const WorkloadCall& call);

// The gate over a comparison's rows: every matched row with a figure on both sides,
// except rows whose buffer footprints differ (the footprint alone moves them, a bias no
// pooling removes). With `workload` (the calls a run carries in run.json), only the
// out-of-place rows at its calls count, each weighed by calls x the reference's time;
// when none of its calls has a compared row, every row counts, weighed by precision,
// and a note says so.
// The noise floor is the comparison's own noise model (--noise-rel).
AcceptanceGate acceptance_gate(const Comparison& comparison, double target, const std::optional<WorkloadWeights>& workload);

}  // namespace ncclsweep
