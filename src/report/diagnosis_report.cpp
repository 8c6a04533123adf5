#include "report/diagnosis_report.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/printf_text.hpp"
#include "report/json_form.hpp"
#include "report/svg_text.hpp"
#include "report/sweep_plan_report.hpp"

namespace ncclsweep {
// Named, not anonymous: the unity build shares this file's unit with other printers.
namespace diagnosis_form {

std::string share_text(const LayerRow& r) { return r.share ? printf_text("%.0f%%", *r.share * 100) : "-"; }

std::string gap_text(const LayerRow& r) { return r.gap_ms ? printf_text("%.3f", *r.gap_ms) : "-"; }

std::string hosts_text(const LayerRow& r) {
  std::string out;
  for (const auto& h : r.hosts) out += (out.empty() ? "" : ",") + h;
  return out.empty() ? "-" : out;
}

std::string time_unit(const Diagnosis& d) { return d.time ? d.time->unit : "ms/iter"; }

std::string used_text(const Diagnosis& d) {
  double used = 0;
  for (const auto& p : d.phases) used += p.used_s.value_or(0);
  return duration_text(used);
}

std::string heading(const Diagnosis& d) {
  std::string out = "ncclsweep diagnose against " + d.reference;
  if (d.time) {
    out += printf_text(": %.3f %s here, %.3f at the reference (%d calls)", d.time->new_ms, d.time->unit.c_str(),
                       d.time->reference_ms, d.time->calls);
  }
  return out;
}

std::string acceptance_line(const Diagnosis& d) {
  return d.gate ? d.gate->line() : "acceptance: UNRESOLVED, no call was compared with the reference";
}

void print_table(const Diagnosis& d, std::ostream& out) {
  out << "# " << heading(d) << "\n";
  out << "# budget " << budget_text(d) << "; used " << used_text(d) << "\n";
  out << printf_text("%-16s %-11s %6s %12s  %s\n", "layer", "verdict", "share", ("gap " + time_unit(d)).c_str(), "hosts");
  for (const LayerRow& r : d.rows) {
    out << printf_text("%-16s %-11s %6s %12s  %s\n", name_of(r.layer).data(), name_of(r.verdict).data(),
                       share_text(r).c_str(), gap_text(r).c_str(), hosts_text(r).c_str());
    out << "    here: " << r.here << "\n    reference: " << r.reference << "\n";
    if (!r.next.empty()) out << "    next: " << r.next << "\n";
  }
  for (const auto& n : d.notes) out << "# note: " << n << "\n";
  if (d.gate) {
    for (const auto& n : d.gate->notes) out << "# acceptance note: " << n << "\n";
  }
  if (!d.results.empty()) out << "# results: " << d.results << "\n";
  out << acceptance_line(d) << "\n";
}

// A Markdown cell: pipes escaped, so a signal's text never splits the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

void print_markdown(const Diagnosis& d, std::ostream& out) {
  out << "### " << cell(heading(d)) << "\n\n";
  out << "Budget " << budget_text(d) << "; used " << used_text(d) << ".\n\n";
  out << "| layer | signal here | at the reference | verdict | share of the gap | gap (" << time_unit(d)
      << ") | hosts | fix or next command |\n|---|---|---|---|---|---|---|---|\n";
  for (const LayerRow& r : d.rows) {
    out << "| " << name_of(r.layer) << " | " << cell(r.here) << " | " << cell(r.reference) << " | " << name_of(r.verdict)
        << " | " << share_text(r) << " | " << gap_text(r) << " | " << cell(hosts_text(r)) << " | " << cell(r.next)
        << " |\n";
  }
  out << "\n";
  for (const auto& n : d.notes) out << "- note: " << n << "\n";
  if (d.gate) {
    for (const auto& n : d.gate->notes) out << "- acceptance note: " << n << "\n";
  }
  out << "\n**" << acceptance_line(d) << "**\n";
}

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json phases_json(const std::vector<PhaseTime>& list) {
  nlohmann::json phases = nlohmann::json::array();
  for (const PhaseTime& p : list) {
    phases.push_back({{"phase", p.phase}, {"planned_s", p.planned_s}, {"used_s", optional_number(p.used_s)}});
  }
  return phases;
}

// How often each call is measured, and why that often.
std::string repeats_text(const DiagnosePlan& plan) {
  const std::string repeats = std::to_string(plan.repeats) + (plan.repeats == 1 ? " repeat" : " repeats");
  const std::string reference = "the reference's " + std::to_string(plan.reference_repeats);
  const std::string within =
      reference + " within " + std::to_string(kDiagnoseMinRepeats) + "-" + std::to_string(kDiagnoseMaxRepeats);
  switch (plan.repeats_from) {
    case RepeatsSource::flag:
      return repeats + " (--repeats)";
    case RepeatsSource::budget:
      if (plan.wanted_repeats == plan.reference_repeats) return repeats + " (the budget does not hold " + reference + ")";
      return repeats + " (the budget does not hold " + std::to_string(plan.wanted_repeats) + ", " + within + ")";
    case RepeatsSource::reference:
      break;
  }
  if (plan.repeats == plan.reference_repeats) return repeats + " (as " + reference + ")";
  return repeats + " (" + within + ")";
}

// What each phase of a planned diagnose will do, beside its seconds.
std::string phase_work(const DiagnosePlan& plan, const PhaseTime& p) {
  if (p.phase == name_of(DiagnoseLayer::preflight)) return "the facts of every rank (as doctor), judged across ranks";
  if (p.phase == name_of(DiagnoseLayer::platform)) return "probe --quick on every rank";
  if (p.phase == name_of(DiagnoseLayer::hosts)) {
    return plan.hosts < 2 ? "not measured: one host" : "locate's tournament over " + std::to_string(plan.hosts) + " hosts";
  }
  if (p.phase == name_of(DiagnoseLayer::collectives)) {
    std::string s = std::to_string(plan.measurements) + (plan.measurements == 1 ? " measurement" : " measurements") +
                    " (calls x placements x repeats), " + repeats_text(plan);
    if (plan.per_measurement_s) s += ", each at most " + duration_text(*plan.per_measurement_s) + " timed";
    return s;
  }
  return plan.settings_method + " search over " + std::to_string(plan.settings_points) + " points of " +
         plan.settings_sweep + ", then the A/B";
}

void print_json(const Diagnosis& d, std::ostream& out) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerRow& r : d.rows) {
    layers.push_back({{"layer", name_of(r.layer)},
                      {"here", r.here},
                      {"reference", r.reference},
                      {"verdict", name_of(r.verdict)},
                      {"share", optional_number(r.share)},
                      {"gap_ms", optional_number(r.gap_ms)},
                      {"hosts", r.hosts},
                      {"next", r.next}});
  }
  const nlohmann::json phases = phases_json(d.phases);
  nlohmann::json time;
  if (d.time) {
    time = {{"new_ms", d.time->new_ms},
            {"reference_ms", d.time->reference_ms},
            {"gap_ms", d.time->gap_ms()},
            {"unit", d.time->unit},
            {"calls", d.time->calls}};
  }
  const nlohmann::json doc{{"schema_version", 1},
                           {"kind", "diagnose"},
                           {"reference", d.reference},
                           {"results", d.results},
                           {"budget_s", d.budget_s},
                           {"phases", phases},
                           {"layers", layers},
                           {"time", time},
                           {"acceptance", d.gate ? acceptance_json(*d.gate) : nlohmann::json()},
                           {"acceptance_line", acceptance_line(d)},
                           {"notes", d.notes},
                           {"exit_status", d.exit_status()}};
  out << doc.dump(2) << "\n";
}

const char* verdict_colour(LayerVerdict v) {
  switch (v) {
    case LayerVerdict::fine: return "#2ca02c";
    case LayerVerdict::cause: return "#d62728";
    case LayerVerdict::suspect: return "#ff7f0e";
    case LayerVerdict::unresolved: return "#7f7f7f";
  }
  return "#7f7f7f";
}

constexpr double kWidth = 860, kLabel = 150, kRight = 40, kBar = 26, kBarGap = 18;

// The gap by layer: one bar per layer, its length the ms of the gap it explains (none
// drawn where the layer has no time model), coloured by verdict.
void print_svg(const Diagnosis& d, std::ostream& out) {
  const double room = kWidth - 40;
  std::vector<std::string> header = wrap_to_width(heading(d), room, 12);
  for (std::string& line : wrap_to_width(acceptance_line(d), room, 12)) header.push_back(std::move(line));
  const double top = 44 + 16 * static_cast<double>(header.size());
  double longest = 0;
  for (const LayerRow& r : d.rows) longest = std::max(longest, r.gap_ms.value_or(0));
  if (d.time) longest = std::max(longest, d.time->gap_ms());
  if (!(longest > 0)) longest = 1;
  const double plot_w = kWidth - kLabel - kRight;
  const double height = top + static_cast<double>(d.rows.size()) * (kBar + kBarGap) + 70;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << std::ceil(height)
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"20\" y=\"26\" font-size=\"15\" font-weight=\"bold\">"
      << xml_escape("The gap to the reference by layer (" + time_unit(d) + ")") << "</text>\n";
  out << text_lines(header, 20, 46, 16);
  double y = top;
  for (const LayerRow& r : d.rows) {
    out << "<text x=\"" << kLabel - 8 << "\" y=\"" << fixed(y + kBar / 2 + 4) << "\" text-anchor=\"end\">"
        << xml_escape(std::string(name_of(r.layer))) << "</text>\n";
    const double w = r.gap_ms ? std::max(0.0, *r.gap_ms) / longest * plot_w : 0;
    out << "<rect x=\"" << kLabel << "\" y=\"" << fixed(y) << "\" width=\"" << fixed(std::max(w, 2.0)) << "\" height=\""
        << kBar << "\" fill=\"" << verdict_colour(r.verdict) << "\"><title>" << xml_escape(r.here) << "</title></rect>\n";
    const std::string label = std::string(name_of(r.verdict)) + (r.gap_ms ? printf_text(", %.3f ms", *r.gap_ms) : "") +
                              (r.share ? ", " + share_text(r) : "") + (r.hosts.empty() ? "" : ", " + hosts_text(r));
    out << "<text x=\"" << fixed(kLabel + std::max(w, 2.0) + 6) << "\" y=\"" << fixed(y + kBar / 2 + 4) << "\">"
        << xml_escape(label) << "</text>\n";
    y += kBar + kBarGap;
  }
  out << "<text x=\"" << kLabel << "\" y=\"" << fixed(y + 14)
      << "\" fill=\"#555\">bar: the share of the gap the layer explains; colour: fine, cause, suspect, unresolved "
         "(green, red, orange, grey)</text>\n</svg>\n";
}

}  // namespace diagnosis_form

void check_diagnosis_format(ReportFormat format) {
  if (std::find(std::begin(kDiagnoseFormats), std::end(kDiagnoseFormats), format) == std::end(kDiagnoseFormats)) {
    throw unsupported_format(format, "a diagnosis",
                             std::span<const ReportFormat>(std::begin(kDiagnoseFormats), std::end(kDiagnoseFormats)));
  }
}

void check_diagnose_plan_format(ReportFormat format) {
  check_diagnosis_format(format);
  if (format == ReportFormat::svg) {
    throw UsageError("diagnose --plan prints text or json, not svg", "drop --format svg, or use --format json");
  }
}

void print_diagnose_plan(const DiagnosePlan& plan, ReportFormat format, std::ostream& out) {
  check_diagnose_plan_format(format);
  if (format == ReportFormat::json) {
    const nlohmann::json doc{{"schema_version", 1},
                             {"kind", "diagnose plan"},
                             {"reference", plan.reference},
                             {"budget_s", plan.budget_s},
                             {"phases", diagnosis_form::phases_json(plan.phases)},
                             {"ranks", plan.ranks},
                             {"hosts", plan.hosts},
                             {"measurements", plan.measurements},
                             {"repeats", plan.repeats},
                             {"repeats_from", name_of(plan.repeats_from)},
                             {"reference_repeats", plan.reference_repeats},
                             {"wanted_repeats", plan.wanted_repeats},
                             {"per_measurement_s", diagnosis_form::optional_number(plan.per_measurement_s)},
                             {"settings_sweep", plan.settings_sweep.empty() ? nlohmann::json() : nlohmann::json(plan.settings_sweep)},
                             {"settings_points", plan.settings_points},
                             {"settings_method", plan.settings_method}};
    out << doc.dump(2) << "\n";
    return;
  }
  out << "# ncclsweep diagnose --plan: " << plan.ranks << (plan.ranks == 1 ? " rank" : " ranks") << " on " << plan.hosts
      << (plan.hosts == 1 ? " host" : " hosts") << ", against " << plan.reference << "; nothing is measured\n";
  out << "budget " << budget_text(plan.budget_s, plan.phases) << "\n";
  std::size_t width = 0;
  for (const PhaseTime& p : plan.phases) width = std::max(width, p.phase.size());
  for (const PhaseTime& p : plan.phases) {
    out << "  " << p.phase << std::string(width - p.phase.size() + 2, ' ') << duration_text(p.planned_s) << ": "
        << diagnosis_form::phase_work(plan, p) << "\n";
  }
  out.flush();
}

std::string budget_text(double budget_s, const std::vector<PhaseTime>& phases) {
  std::string parts;
  for (const PhaseTime& p : phases) parts += (parts.empty() ? "" : ", ") + p.phase + " " + duration_text(p.planned_s);
  return duration_text(budget_s) + " (" + parts + ")";
}

std::string budget_text(const Diagnosis& d) { return budget_text(d.budget_s, d.phases); }

void print_diagnosis(const Diagnosis& d, ReportFormat format, std::ostream& out) {
  check_diagnosis_format(format);
  switch (format) {
    case ReportFormat::md: diagnosis_form::print_markdown(d, out); break;
    case ReportFormat::json: diagnosis_form::print_json(d, out); break;
    case ReportFormat::svg: diagnosis_form::print_svg(d, out); break;
    default: diagnosis_form::print_table(d, out); break;
  }
  out.flush();
}

}  // namespace ncclsweep
