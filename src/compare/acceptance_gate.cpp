#include "compare/acceptance_gate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>

#include "compare/comparison.hpp"
#include "core/number_format.hpp"
#include "core/printf_text.hpp"

namespace ncclsweep {
namespace {

std::string rows_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); }

// d2(n), n = 2..25: the expected range of n standard normal draws, in standard
// deviations. Beyond 25 the last value stands: it understates the range, so the
// standard deviation read from it errs wide.
double range_in_sigmas(int n) {
  static constexpr std::array<double, 24> kD2{1.128, 1.693, 2.059, 2.326, 2.534, 2.704, 2.847, 2.970,
                                              3.078, 3.173, 3.258, 3.336, 3.407, 3.472, 3.532, 3.588,
                                              3.640, 3.689, 3.735, 3.778, 3.819, 3.858, 3.895, 3.931};
  return kD2[static_cast<std::size_t>(std::clamp(n, 2, 25) - 2)];
}

// The rows pooled with NEW's repeats raised to at least `repeats` (0: NEW known exactly,
// which leaves what the reference's excess noise alone allows).
struct Pooled {
  double log_ratio = 0;  // weighted mean of ln(NEW / REFERENCE)
  double se = 0;         // its standard error: NEW's noise and the reference's excess
};

Pooled pool(std::span<const GateRow> rows, const GateSettings& settings, int repeats) {
  std::vector<double> weights, sigmas;
  double total = 0;
  for (const GateRow& r : rows) {
    const double sigma = repeats == 0 ? 0 : median_sigma(r.new_sigma, std::max(r.new_repeats, repeats));
    // A row known to no noise at all would take every weight: a floor keeps the others.
    const double variance = std::max(sigma * sigma + r.reference_sigma * r.reference_sigma, 1e-12);
    const double w = settings.weighting == GateWeighting::workload_time ? r.time_weight : 1 / variance;
    weights.push_back(w);
    sigmas.push_back(sigma);
    total += w;
  }
  Pooled p;
  // Each side's noise: a share moves every row of its launch at once (adding up in
  // standard deviations), the rest is each row's own (adding up in variances).
  double new_shared = 0, new_own = 0, reference_shared = 0, reference_own = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double w = total > 0 ? weights[i] / total : 1.0 / static_cast<double>(rows.size());
    const double excess = rows[i].reference_excess;
    p.log_ratio += w * std::log(rows[i].ratio);
    new_shared += w * sigmas[i];
    new_own += w * w * sigmas[i] * sigmas[i];
    reference_shared += w * excess;
    reference_own += w * w * excess * excess;
  }
  const double rho = settings.shared_share;
  p.se = std::sqrt(rho * (new_shared * new_shared + reference_shared * reference_shared) +
                   (1 - rho) * (new_own + reference_own));
  return p;
}

std::string target_text(double target) { return printf_text("%g", target); }

std::string interval_text(const AcceptanceGate& g, const char* dash) {
  return printf_text("%g%% interval ", g.confidence * 100) + significant3(g.lower) + dash + significant3(g.upper);
}

}  // namespace

double one_measurement_sigma(double band_relative, int repeats, double range_relative) {
  const double from_band = band_relative / 2;
  if (repeats <= 1) return from_band;
  return std::max(from_band, range_relative / range_in_sigmas(repeats));
}

double excess_sigma(double measured_sigma, double clean_sigma, int repeats) {
  const double beyond = measured_sigma * measured_sigma - clean_sigma * clean_sigma;
  return beyond > 0 ? median_sigma(std::sqrt(beyond), repeats) : 0;
}

double median_sigma(double sigma, int repeats) {
  const int n = std::max(repeats, 1);
  // The median of 3 or more draws is less efficient than their mean: sqrt(pi/2) wider
  // for many draws (of 1 or 2 it is the mean).
  const double efficiency = n >= 3 ? std::sqrt(std::numbers::pi / 2) : 1.0;
  return sigma * efficiency / std::sqrt(static_cast<double>(n));
}

AcceptanceGate evaluate_gate(std::span<const GateRow> rows, const GateSettings& settings) {
  AcceptanceGate g;
  g.target = settings.target;
  g.shared_share = settings.shared_share;
  g.weighting = settings.weighting;
  g.rows = rows.size();
  if (rows.empty()) return g;  // nothing to judge: UNRESOLVED, no repeats would change that
  g.new_repeats = std::max(1, std::min_element(rows.begin(), rows.end(), [](const GateRow& a, const GateRow& b) {
                                return a.new_repeats < b.new_repeats;
                              })->new_repeats);
  const Pooled now = pool(rows, settings, 1);
  g.ratio = std::exp(now.log_ratio);
  g.lower = std::exp(now.log_ratio - kGateZ * now.se);
  g.upper = std::exp(now.log_ratio + kGateZ * now.se);
  if (g.lower >= settings.target) {
    g.verdict = GateVerdict::pass;
  } else if (g.upper < settings.target) {
    g.verdict = GateVerdict::fail;
  } else {
    g.verdict = GateVerdict::unresolved;
    // How the interval shrinks with repeats of NEW: every row's median over n repeats.
    // The reference's excess does not shrink: if it alone keeps the target inside, no
    // repeat of NEW will do.
    const double bar = std::log(settings.target);
    const Pooled exact = pool(rows, settings, 0);
    g.reference_too_noisy = (kGateZ + kGatePowerZ) * exact.se > std::abs(exact.log_ratio - bar);
    for (int n = g.new_repeats + 1; n <= kMaxSuggestedRepeats && !g.reference_too_noisy; ++n) {
      const Pooled then = pool(rows, settings, n);
      if ((kGateZ + kGatePowerZ) * then.se <= std::abs(then.log_ratio - bar)) {
        g.repeats_to_settle = n;
        break;
      }
    }
  }
  return g;
}

std::string AcceptanceGate::summary_tail() const {
  const std::string verdict_text(name_of(verdict));
  if (wrong_rows > 0) return verdict_text + ": NEW returned wrong data in " + rows_text(wrong_rows);
  if (rows == 0) return verdict_text + ": acceptance has no row to pool";
  const std::string measured = "acceptance " + significant3(ratio) + " of reference (" + interval_text(*this, "-") + ")";
  switch (verdict) {
    case GateVerdict::pass: return verdict_text + ": " + measured + " clears the target " + target_text(target);
    case GateVerdict::fail: return verdict_text + ": " + measured + ", below the target " + target_text(target);
    case GateVerdict::unresolved: break;
  }
  return verdict_text + ": " + measured + " spans the target " + target_text(target);
}

std::string AcceptanceGate::line() const {
  std::string s = "acceptance at target " + target_text(target) + ": " + std::string(name_of(verdict));
  if (wrong_rows > 0) s += ", NEW returned wrong data in " + rows_text(wrong_rows) + " (no result, however fast)";
  if (rows == 0) return s + ", no row to pool";
  s += ", NEW at " + significant3(ratio) + " of REFERENCE (" + interval_text(*this, " .. ") + ") over " +
       std::to_string(rows) + (rows == 1 ? " row" : " rows");
  s += weighting == GateWeighting::workload_time ? " at the workload's calls, weighed by time per iteration (" + workload + ")"
                                                 : " weighed by precision";
  s += printf_text(", %g%% of each row's noise shared by all", shared_share * 100);
  if (verdict != GateVerdict::unresolved) return s;
  if (repeats_to_settle) {
    return s + "; measuring NEW with --repeats " + std::to_string(*repeats_to_settle) + " (now " +
           std::to_string(new_repeats) + ") would settle it";
  }
  if (reference_too_noisy) {
    return s + "; the reference's own spread, wider than a clean figure's, keeps it open whatever NEW does: "
               "measure the reference again";
  }
  return s + "; the ratio sits on the target: not even " + std::to_string(kMaxSuggestedRepeats) +
         " repeats of NEW would settle it";
}

namespace {

// One matched row as evidence: NEW's noise per measurement; the reference's as it
// stands, and how far that is beyond a clean figure's (the same row without its own
// measured spread, under the same noise model).
GateRow evidence(const RowComparison& r, const NoiseModel& noise) {
  const auto range = [](const SideRow& row) { return row.repeats > 1 ? 2 * row.measured_spread.value_or(0) : 0.0; };
  const SideRow& now = r.new_row;
  const SideRow& before = r.reference_row;
  SideRow clean = before;
  clean.measured_spread.reset();
  const double reference_one = one_measurement_sigma(r.reference_band_gbps / before.busbw_gbps, before.repeats, range(before));
  const double clean_one = noise_band_gbps(clean, noise) / before.busbw_gbps / 2;
  GateRow g;
  g.ratio = now.busbw_gbps / before.busbw_gbps;
  g.new_sigma = one_measurement_sigma(r.new_band_gbps / now.busbw_gbps, now.repeats, range(now));
  g.new_repeats = std::max(1, now.repeats);
  g.reference_sigma = median_sigma(reference_one, before.repeats);
  g.reference_excess = excess_sigma(reference_one, clean_one, before.repeats);
  return g;
}

}  // namespace

// Whether a side's row is the measurement of this workload call: an ncclsweep row by the
// size it asked for and the communicator it ran on (a group as large as the world is the
// world: a run measures it there), an nccl-tests row (the world) by size.
bool is_workload_call(const SideRow& row, const WorkloadCall& call) {
  if (row.key.placement != Placement::out_of_place || !row.key.collective || !row.key.dtype || !call.collective ||
      !call.dtype || row.key.collective->name != call.collective->name || row.key.dtype->name != call.dtype->name) {
    return false;
  }
  if (!row.measurement) return call.communicator == CommunicatorKind::world && row.key.size_bytes == call.bytes;
  const Bytes asked = row.measurement->requested_bytes ? row.measurement->requested_bytes : row.key.size_bytes;
  const CommunicatorShape& ran_on = row.measurement->communicator;
  const bool same_communicator = ran_on.kind == call.communicator ||
                                 (ran_on.is_world() && call.communicator_ranks > 0 && ran_on.ranks == call.communicator_ranks);
  return same_communicator && (asked == call.bytes || row.key.size_bytes == call.bytes);
}

AcceptanceGate acceptance_gate(const Comparison& comparison, double target, const std::optional<WorkloadWeights>& workload) {
  std::vector<const RowComparison*> usable;
  std::size_t without_figure = 0, footprints = 0, moving_nothing = 0, wrong = 0;
  // On one rank an in-place call has nothing to move: its figure is launch overhead, and
  // as evidence it would weigh as much as a real copy.
  const bool one_rank = comparison.new_side.ranks == 1 || comparison.reference.ranks == 1;
  for (const RowComparison& r : comparison.rows) {
    if (r.wrong_data) {
      ++wrong;
    } else if (one_rank && r.key.placement == Placement::in_place) {
      ++moving_nothing;
    } else if (!(r.new_row.busbw_gbps > 0) || !(r.reference_row.busbw_gbps > 0)) {
      ++without_figure;
    } else if (r.footprint_differs) {
      ++footprints;
    } else {
      usable.push_back(&r);
    }
  }
  std::vector<std::string> notes;
  if (without_figure > 0) notes.push_back(rows_text(without_figure) + " with a zero busbw on a side left out");
  if (moving_nothing > 0) {
    notes.push_back(rows_text(moving_nothing) + " in place on one rank left out: such a call moves nothing");
  }
  if (footprints > 0) {
    notes.push_back(rows_text(footprints) + " whose buffer footprints differ left out: the footprint alone moves them");
  }

  // The workload's calls: each row's time per iteration on the reference (NEW's time
  // where the reference has none).
  std::map<std::size_t, double> call_time;  // index into usable -> calls x time
  std::size_t calls_without_row = 0;
  if (workload) {
    for (const WorkloadCall& call : workload->calls) {
      bool found = false;
      for (std::size_t i = 0; i < usable.size(); ++i) {
        const RowComparison& r = *usable[i];
        if (!is_workload_call(r.new_row, call) && !is_workload_call(r.reference_row, call)) continue;
        const double time_us = r.reference_row.time_us > 0 ? r.reference_row.time_us : r.new_row.time_us;
        if (!(time_us > 0) || !(call.calls > 0)) continue;
        call_time[i] += call.calls * time_us;
        found = true;
      }
      if (!found) ++calls_without_row;
    }
  }

  GateSettings settings;
  settings.target = target;
  std::vector<GateRow> rows;
  if (!call_time.empty()) {
    settings.weighting = GateWeighting::workload_time;
    for (const auto& [i, time] : call_time) {
      rows.push_back(evidence(*usable[i], comparison.options.noise));
      rows.back().time_weight = time;
    }
    if (calls_without_row > 0) {
      notes.push_back(std::to_string(calls_without_row) + " of the workload's " + std::to_string(workload->calls.size()) +
                      " calls have no compared row with a time (no figure at that size on both sides): the gate "
                      "weighs the others");
    }
  } else {
    for (const RowComparison* r : usable) rows.push_back(evidence(*r, comparison.options.noise));
    if (workload) {
      notes.push_back("none of the workload's " + std::to_string(workload->calls.size()) +
                      " calls has a compared row: the gate pools every row instead");
    }
  }
  AcceptanceGate gate = evaluate_gate(rows, settings);
  if (gate.weighting == GateWeighting::workload_time) gate.workload = workload->source;
  // Fast wrong answers are no result: the pooled rows' speed cannot pass them.
  gate.wrong_rows = wrong;
  if (wrong > 0) gate.verdict = GateVerdict::fail;
  gate.notes = std::move(notes);
  return gate;
}

}  // namespace ncclsweep
