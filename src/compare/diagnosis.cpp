#include "compare/diagnosis.hpp"

#include <algorithm>
#include <set>

#include "compare/comparison.hpp"
#include "core/errors.hpp"
#include "core/printf_text.hpp"

namespace ncclsweep {
// Named, not anonymous: the unity build shares this file's unit with other printers.
namespace diagnosis_rules {

std::vector<std::string> hosts_of(const std::vector<doctor::Finding>& findings) {
  std::vector<std::string> hosts;
  for (const auto& f : findings) {
    for (const auto& h : f.hosts) {
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
  }
  return hosts;
}

bool share_a_host(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& h) { return std::find(b.begin(), b.end(), h) != b.end(); });
}

std::string count_text(int n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

// The first finding at `severity` or above: its evidence names the signal, its fix the next step.
const doctor::Finding* first_at(const std::vector<doctor::Finding>& findings, doctor::Severity severity) {
  for (const auto& f : findings) {
    if (f.severity >= severity) return &f;
  }
  return nullptr;
}

LayerRow preflight_row(const DiagnoseEvidence& e) {
  LayerRow row;
  row.layer = DiagnoseLayer::preflight;
  int errors = 0, warnings = 0;
  std::vector<doctor::Finding> named;
  for (const auto& f : e.preflight) {
    errors += f.severity == doctor::Severity::error;
    warnings += f.severity == doctor::Severity::warning;
    if (f.severity != doctor::Severity::info) named.push_back(f);
  }
  row.reference = "the same facts on every rank";
  row.hosts = hosts_of(named);
  if (const auto* worst = first_at(e.preflight, doctor::Severity::warning)) {
    row.here = count_text(errors, "error") + ", " + count_text(warnings, "warning") + ": " + worst->check + ": " +
               worst->evidence;
    row.verdict = errors > 0 ? LayerVerdict::cause : LayerVerdict::suspect;
    row.next = worst->fix.empty() ? "ncclsweep doctor" : worst->fix;
  } else {
    row.here = "no error or warning";
    row.verdict = LayerVerdict::fine;
  }
  return row;
}

LayerRow platform_row(const DiagnoseEvidence& e) {
  LayerRow row;
  row.layer = DiagnoseLayer::platform;
  row.reference = e.platform_against.empty() ? "nothing to judge against" : e.platform_against;
  if (!e.platform_measured) {
    row.here = "probed, not judged";
    row.verdict = LayerVerdict::unresolved;
    row.next = "launch on two hosts or more, or give a --reference diagnose directory that holds probe figures";
    return row;
  }
  if (e.platform.empty()) {
    row.here = "no host stands out";
    row.verdict = LayerVerdict::fine;
    return row;
  }
  row.hosts = hosts_of(e.platform);
  row.here = e.platform.front().evidence;
  row.next = e.platform.front().fix;
  // Whether a cause or a suspect is settled by the other layers in attribute().
  row.verdict = LayerVerdict::suspect;
  return row;
}

LayerRow hosts_row(const DiagnoseEvidence& e) {
  LayerRow row;
  row.layer = DiagnoseLayer::hosts;
  row.reference = printf_text("%.2f of the other hosts' figures", e.hosts_threshold);
  // Locate did not run, or stopped before its verdicts: nothing to judge the row by.
  const auto unjudged = [&](const std::string& here, const char* next) {
    row.here = here;
    row.reference = "-";
    row.verdict = LayerVerdict::unresolved;
    row.next = next;
    return row;
  };
  if (!e.hosts_skipped.empty()) {
    return unjudged("not measured: " + e.hosts_skipped, "launch on two hosts or more (ncclsweep locate pairs the hosts)");
  }
  if (!e.hosts_stopped.empty()) {
    return unjudged("not judged: " + e.hosts_stopped,
                    "the error above says why; ncclsweep locate on the same hosts measures this row alone");
  }
  // Slow subjects, or failing those the ones below the threshold within noise: a host
  // at 0.03 of its peers that this run cannot tell from noise is not "nothing below".
  const bool unsettled = e.slow.empty() && !e.unsettled.empty();
  const std::vector<SlowSubject>& subjects = unsettled ? e.unsettled : e.slow;
  if (subjects.empty()) {
    row.here = "no host or link below the threshold";
    row.verdict = LayerVerdict::fine;
    return row;
  }
  std::string named;
  for (const auto& s : subjects) {
    std::string hosts;
    for (const auto& h : s.hosts) hosts += (hosts.empty() ? "" : " x ") + h;
    named += (named.empty() ? "" : "; ") + s.kind + " " + hosts + printf_text(" at %.2f", s.ratio);
    for (const auto& h : s.hosts) {
      if (std::find(row.hosts.begin(), row.hosts.end(), h) == row.hosts.end()) row.hosts.push_back(h);
    }
  }
  if (unsettled) {
    row.here = "below the threshold within this run's noise: " + named;
    row.verdict = LayerVerdict::unresolved;
    const std::string settle = e.hosts_settle.empty() ? std::string(" with longer repeats") : ": " + e.hosts_settle;
    row.next = "ncclsweep locate on these hosts" + settle + " (docs/locate.md)";
    return row;
  }
  row.here = named;
  row.verdict = LayerVerdict::cause;
  row.next = "ncclsweep locate on these hosts, then drain or repair them (docs/locate.md)";
  return row;
}

// The share of the gap subjects at these ratios would explain: each paces every
// collective it is in, so the calls would take (1 - the lowest ratio) less without them.
double subjects_share(const std::vector<SlowSubject>& subjects, const CommunicationTime& time) {
  double slowest = 1;
  for (const auto& s : subjects) slowest = std::min(slowest, s.ratio);
  return std::min(1.0, time.new_ms * (1 - std::max(0.0, slowest)) / time.gap_ms());
}

LayerRow collectives_row(const DiagnoseEvidence& e) {
  LayerRow row;
  row.layer = DiagnoseLayer::collectives;
  if (!e.gate || e.gate->rows == 0 || !e.time) {
    row.here = e.collectives_note.empty() ? "no call compared with the reference" : e.collectives_note;
    row.reference = "-";
    row.verdict = LayerVerdict::unresolved;
    row.next = !e.collectives_next.empty()
                   ? e.collectives_next
                   : "give a --reference that measured the workload's calls (a run or diagnose directory, nccl-tests output)";
    return row;
  }
  const CommunicationTime& t = *e.time;
  row.here = printf_text("%.3f %s, %.3f of reference (95%% interval %.3f-%.3f)", t.new_ms, t.unit.c_str(), e.gate->ratio,
                         e.gate->lower, e.gate->upper);
  row.reference = printf_text("%.3f %s", t.reference_ms, t.unit.c_str());
  return row;
}

// A band won from the job's own settings: its winner, and the gain the evidence shows - the
// final A/B's, or where the grid was measured whole, the grid's own figure of the winner
// over the baseline it dropped.
struct WonBand {
  const SearchBandSummary* band = nullptr;
  double gain = 0;
};

std::vector<WonBand> won_bands(const SearchSummary& s) {
  std::vector<WonBand> won;
  for (const auto& b : s.bands) {
    if (b.winner.empty() || b.winner == s.baseline) continue;
    double gain = b.ab_measured ? b.ab_gain : 0;
    if (!b.ab_measured) {
      for (const auto& p : s.points) {
        if (p.point != s.baseline) continue;
        for (const auto& f : p.bands) {
          if (f.band == b.band && f.state == FateState::dropped && f.by == b.winner) gain = f.gain;
        }
      }
    }
    if (gain > 0) won.push_back({&b, gain});
  }
  return won;
}

LayerRow settings_row(const DiagnoseEvidence& e) {
  LayerRow row;
  row.layer = DiagnoseLayer::settings;
  if (!e.settings) {
    row.here = "not searched: " + e.settings_note;
    row.reference = "-";
    row.verdict = LayerVerdict::unresolved;
    row.next = "ncclsweep run " + e.settings_sweep + " --search racing at the same calls (docs/search.md)";
    return row;
  }
  const SearchSummary& s = *e.settings;
  row.reference = "the job's own settings" + (s.baseline.empty() ? std::string() : " (" + s.baseline + ")");
  const auto won = won_bands(s);
  if (!won.empty()) {
    const WonBand best =
        *std::max_element(won.begin(), won.end(), [](const WonBand& a, const WonBand& b) { return a.gain < b.gain; });
    row.here = printf_text("%s: %+.1f%% algbw in %s (%s), %d of %d band(s) won", best.band->winner.c_str(),
                           100 * best.gain, best.band->band.c_str(), best.band->ab_measured ? "A/B" : "whole grid",
                           static_cast<int>(won.size()), static_cast<int>(s.bands.size()));
    row.verdict = LayerVerdict::suspect;  // a cause where it closes a gap (attribute())
    row.next = "set " + best.band->winner + " in the job (environment or config), then diagnose again";
    return row;
  }
  const bool settled = std::all_of(s.bands.begin(), s.bands.end(), [](const auto& b) { return b.settled; });
  row.here = std::to_string(s.bands.size()) + " band(s) searched in " + std::to_string(s.measurements) +
             " measurement(s): no setting of " + e.settings_sweep + " beats the job's own";
  row.verdict = settled && !s.bands.empty() ? LayerVerdict::fine : LayerVerdict::unresolved;
  if (row.verdict == LayerVerdict::unresolved) {
    row.next = "a larger --budget: the search ended before every band settled";
  }
  return row;
}

}  // namespace diagnosis_rules

int Diagnosis::exit_status() const {
  if (stopped_status != 0) return stopped_status;
  if (!gate) return kExitUnresolved;
  switch (gate->verdict) {
    case GateVerdict::pass: return kExitOk;
    case GateVerdict::fail: return kExitRegression;
    case GateVerdict::unresolved: return kExitUnresolved;
  }
  return kExitUnresolved;
}

Diagnosis attribute(const DiagnoseEvidence& e) {
  Diagnosis d;
  d.gate = e.gate;
  d.time = e.time;
  LayerRow preflight = diagnosis_rules::preflight_row(e);
  LayerRow platform = diagnosis_rules::platform_row(e);
  LayerRow hosts = diagnosis_rules::hosts_row(e);
  LayerRow calls = diagnosis_rules::collectives_row(e);

  const bool timed = e.time && e.gate && e.gate->rows > 0;
  const double gap = timed ? e.time->gap_ms() : 0;
  const bool has_gap = timed && gap > kNoGapShare * e.time->reference_ms;
  const bool gate_passed = e.gate && e.gate->verdict == GateVerdict::pass;

  // Hosts and links: a slow subject paces every collective it is in, so the workload's
  // calls would take (1 - its ratio) less without it; that, over the gap, is its share.
  if (hosts.verdict == LayerVerdict::cause && has_gap) hosts.share = diagnosis_rules::subjects_share(e.slow, *e.time);
  // What the hosts below the threshold within noise would explain, were they slow: no
  // share of theirs, but the collectives row cannot claim that part as its own.
  const double unsettled_share = hosts.verdict == LayerVerdict::unresolved && !e.unsettled.empty() && has_gap
                                     ? diagnosis_rules::subjects_share(e.unsettled, *e.time)
                                     : 0.0;
  // A platform signal on the host locate named is the cause there: the host row stays
  // as where it shows, a suspect, and hands its share over.
  if (platform.verdict == LayerVerdict::suspect && hosts.verdict == LayerVerdict::cause &&
      diagnosis_rules::share_a_host(platform.hosts, hosts.hosts)) {
    platform.verdict = LayerVerdict::cause;
    platform.share = hosts.share;
    hosts.verdict = LayerVerdict::suspect;
    hosts.share.reset();
    hosts.next = "the platform row's fix on " + hosts.hosts.front() + ", then diagnose again";
  } else if (platform.verdict == LayerVerdict::suspect && has_gap && !gate_passed &&
             hosts.verdict != LayerVerdict::cause) {
    // A host that stands out while the cluster misses the reference and nothing else
    // explains it: the likeliest place of the gap, its time not measured apart.
    platform.verdict = LayerVerdict::cause;
  }
  if (preflight.verdict != LayerVerdict::fine && hosts.verdict == LayerVerdict::cause &&
      diagnosis_rules::share_a_host(preflight.hosts, hosts.hosts)) {
    preflight.share = hosts.share;
    preflight.verdict = LayerVerdict::cause;
    hosts.verdict = LayerVerdict::suspect;
    hosts.share.reset();
    hosts.next = "the preflight row's fix, then diagnose again";
  }

  std::optional<LayerRow> settings;
  if (!e.settings_sweep.empty()) settings = diagnosis_rules::settings_row(e);

  if (timed) {
    double explained = 0;
    for (const LayerRow* r : {&preflight, &platform, &hosts}) explained += r->share.value_or(0);
    explained = std::min(1.0, explained);
    double residual = has_gap ? 1 - explained : 0;
    if (settings && e.settings && settings->verdict == LayerVerdict::suspect && has_gap && !gate_passed) {
      // A setting the A/B confirmed closes the part of the calls' time its gain saves: all
      // of it where every band won (the smallest gain counted), else the share is not known.
      settings->verdict = LayerVerdict::cause;
      const auto won = diagnosis_rules::won_bands(*e.settings);
      if (won.size() == e.settings->bands.size()) {
        double gain = won.front().gain;
        for (const diagnosis_rules::WonBand& b : won) gain = std::min(gain, b.gain);
        settings->share = std::min(residual, e.time->new_ms * (1 - 1 / (1 + gain)) / gap);
        residual -= *settings->share;
      }
    }
    if (has_gap) calls.share = residual;
    switch (e.gate->verdict) {
      case GateVerdict::pass:
        calls.verdict = LayerVerdict::fine;
        break;
      case GateVerdict::fail:
        calls.verdict = residual >= kCauseResidual     ? LayerVerdict::cause
                        : residual >= kSuspectResidual ? LayerVerdict::suspect
                                                       : LayerVerdict::fine;
        calls.next = calls.verdict == LayerVerdict::fine ? "the other rows explain the gap"
                     : settings ? "the NCCL settings row's fix, then diagnose again"
                                : "search the fabric's NCCL settings at these calls: diagnose --sweep SWEEP, or "
                                  "ncclsweep run SWEEP --search racing (docs/search.md)";
        if (calls.verdict != LayerVerdict::fine && residual - unsettled_share < kSuspectResidual) {
          calls.verdict = LayerVerdict::unresolved;
          calls.next = "the hosts and links row's hosts would explain the gap were they slow: settle that row first";
        }
        break;
      case GateVerdict::unresolved:
        calls.verdict = LayerVerdict::unresolved;
        if (e.gate->repeats_to_settle) {
          calls.next = "diagnose again with --repeats " + std::to_string(*e.gate->repeats_to_settle);
        } else if (e.gate->reference_too_noisy) {
          calls.next = "a steadier reference: its own spread spans the target";
        } else {
          calls.next = "the ratio sits on the target: no number of repeats decides it";
        }
        break;
    }
    for (LayerRow* r : {&preflight, &platform, &hosts, &calls, settings ? &*settings : nullptr}) {
      if (r && r->share) r->gap_ms = *r->share * gap;
    }
  }
  d.rows = {preflight, platform, hosts, calls};
  if (settings) d.rows.push_back(*settings);
  d.notes = e.platform_notes;
  if (timed && !has_gap) d.notes.push_back("no gap to share out: this cluster is within 1% of the reference or faster");
  return d;
}

std::optional<CommunicationTime> communication_time(const Comparison& comparison,
                                                    const std::optional<WorkloadWeights>& workload) {
  std::vector<const RowComparison*> timed;
  for (const RowComparison& r : comparison.rows) {
    if (r.new_row.time_us > 0 && r.reference_row.time_us > 0 && r.key.placement == Placement::out_of_place) {
      timed.push_back(&r);
    }
  }
  CommunicationTime t;
  std::set<const RowComparison*> used;
  if (workload) {
    t.unit = workload->ms_unit();
    for (const WorkloadCall& call : workload->calls) {
      for (const RowComparison* r : timed) {
        if (!is_workload_call(r->new_row, call) && !is_workload_call(r->reference_row, call)) continue;
        t.new_ms += call.calls * r->new_row.time_us / 1000;
        t.reference_ms += call.calls * r->reference_row.time_us / 1000;
        used.insert(r);
      }
    }
  }
  if (used.empty()) {
    t = CommunicationTime{};
    t.unit = "ms/pass";
    for (const RowComparison* r : timed) {
      t.new_ms += r->new_row.time_us / 1000;
      t.reference_ms += r->reference_row.time_us / 1000;
      used.insert(r);
    }
  }
  if (used.empty()) return std::nullopt;
  t.calls = static_cast<int>(used.size());
  return t;
}

}  // namespace ncclsweep
