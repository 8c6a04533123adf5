// A comparison as a terminal table, Markdown (for a pull request comment) and JSON.
// Every form starts with the one-line summary, then the comparability block.
#include <algorithm>
#include <cstdio>

#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "report/json_form.hpp"
#include "report/printers.hpp"

namespace ncclsweep {
namespace {

const char* verdict_colour(Verdict v, bool fails) {
  if (fails) return "\033[1;31m";
  switch (v) {
    case Verdict::faster: return "\033[32m";
    case Verdict::slower: return "\033[31m";
    case Verdict::ambiguous: return "\033[33m";
    case Verdict::unresolved: return "\033[2m";
    default: return "";
  }
}

std::string ratio_text(const RowComparison& r) {
  return r.reference_row.busbw_gbps > 0 ? percent_change(r.ratio) : "n/a";
}

// "slower FAIL (footprints differ)": a judged row whose footprints differed says so, as
// its gap was beyond what the footprint explains.
std::string verdict_text(const RowComparison& r) {
  return std::string(verdict_name(r.verdict)) + (r.fails ? " FAIL" : "") + (r.wrong_data ? " (wrong data)" : "") +
         (r.footprint_differs && r.verdict != Verdict::ambiguous ? " (footprints differ)" : "");
}

std::string band_rule(const Comparison& c) {
  return "a row whose band is over " + significant3(c.options.max_band_share * 100) + "% of its busbw is unresolved (" +
         kUnresolvedAdvice + ")";
}

}  // namespace

// The gate's JSON: every figure the line prints, and its notes.
nlohmann::json acceptance_json(const AcceptanceGate& g) {
  nlohmann::json j{{"verdict", name_of(g.verdict)},
                   {"target", g.target},
                   {"ratio", g.ratio},
                   {"lower", g.lower},
                   {"upper", g.upper},
                   {"confidence", g.confidence},
                   {"rows", g.rows},
                   {"weighting", name_of(g.weighting)},
                   {"workload", g.workload.empty() ? nlohmann::json() : nlohmann::json(g.workload)},
                   {"shared_noise_share", g.shared_share},
                   {"new_repeats", g.new_repeats},
                   {"repeats_to_settle", g.repeats_to_settle ? nlohmann::json(*g.repeats_to_settle) : nlohmann::json()},
                   {"reference_too_noisy", g.reference_too_noisy},
                   {"wrong_rows", g.wrong_rows},
                   {"notes", g.notes},
                   {"line", g.line()}};
  return j;
}

void print_comparison_table(const Comparison& c, const PrintStyle& style, std::ostream& out) {
  const char* bold = style.colour ? "\033[1m" : "";
  const char* plain = style.colour ? "\033[0m" : "";
  out << bold << c.summary() << plain << "\n";
  out << "NEW:       " << identity_line(c.new_side) << "\n";
  out << "REFERENCE: " << identity_line(c.reference) << "\n";
  out << describe_noise(c.options.noise) << "; " << band_rule(c) << "\n";
  for (const auto& d : c.differences) out << "differs: " << d << "\n";
  for (const auto& n : c.notes) out << "note: " << n << "\n";
  int width = 3;
  for (const RowComparison& r : c.rows) width = std::max(width, static_cast<int>(row_label(r.key).size()));
  out << printf_text("\n%-*s %10s %10s %10s %8s  %s\n", width, "row", "new GB/s", "ref GB/s", "band GB/s", "change",
                     "verdict");
  for (const RowComparison& r : c.rows) {
    const std::string band = "+-" + significant3(r.new_band_gbps + r.reference_band_gbps);
    out << printf_text("%-*s %10s %10s %10s %8s  %s%s%s\n", width, row_label(r.key).c_str(),
                       significant3(r.new_row.busbw_gbps).c_str(), significant3(r.reference_row.busbw_gbps).c_str(),
                       band.c_str(), ratio_text(r).c_str(), style.colour ? verdict_colour(r.verdict, r.fails) : "",
                       verdict_text(r).c_str(), style.colour ? plain : "");
  }
  // The gate is the last word: its notes, then its line.
  if (c.acceptance) {
    out << "\n";
    for (const auto& n : c.acceptance->notes) out << "acceptance note: " << n << "\n";
    out << bold << c.acceptance->line() << plain << "\n";
  }
}

void print_comparison_markdown(const Comparison& c, const PrintStyle&, std::ostream& out) {
  out << "**" << c.summary() << "**\n\n";
  out << "- NEW: " << identity_line(c.new_side) << "\n";
  out << "- REFERENCE: " << identity_line(c.reference) << "\n";
  out << "- " << describe_noise(c.options.noise) << "; " << band_rule(c) << "\n";
  for (const auto& d : c.differences) out << "- differs: " << d << "\n";
  for (const auto& n : c.notes) out << "- note: " << n << "\n";
  const std::string header =
      "| row | NEW busbw (GB/s) | REFERENCE busbw (GB/s) | change | verdict |\n|---|---:|---:|---:|---|\n";
  auto print_row = [&](const RowComparison& r) {
    out << "| " << row_label(r.key) << " | " << significant3(r.new_row.busbw_gbps) << " | "
        << significant3(r.reference_row.busbw_gbps) << " | " << ratio_text(r) << " | "
        << (r.fails ? "**" + verdict_text(r) + "**" : verdict_text(r)) << " |\n";
  };
  // What needs a reviewer's eye stays open; the rest is folded.
  bool any_open = false;
  for (const RowComparison& r : c.rows) {
    if (r.verdict == Verdict::same) continue;
    if (!any_open) out << "\n" << header;
    any_open = true;
    print_row(r);
  }
  out << "\n<details><summary>all " << c.rows.size() << " rows</summary>\n\n" << header;
  for (const RowComparison& r : c.rows) print_row(r);
  out << "\n</details>\n";
  if (c.acceptance) {
    out << "\n";
    for (const auto& n : c.acceptance->notes) out << "- acceptance note: " << n << "\n";
    out << (c.acceptance->notes.empty() ? "" : "\n") << "**" << c.acceptance->line() << "**\n";
  }
}

void print_comparison_json(const Comparison& c, const PrintStyle&, std::ostream& out) {
  nlohmann::json j{{"summary", c.summary()},
                   {"passed", c.passed()},
                   {"exit_status", c.exit_status()},
                   {"threshold", c.options.threshold},
                   {"noise", {{"relative", c.options.noise.relative}, {"time_us", c.options.noise.time_us}}},
                   {"min_size_bytes", c.options.min_size},
                   {"max_band_share", c.options.max_band_share},
                   {"new", identity_json(c.new_side)},
                   {"reference", identity_json(c.reference)},
                   {"differences", c.differences},
                   {"notes", c.notes},
                   {"rows", nlohmann::json::array()}};
  for (const RowComparison& r : c.rows) {
    j["rows"].push_back({{"collective", collective_name(r.key)}, {"dtype", dtype_name(r.key)}, {"op", op_name(r.key)},
                         {"size_bytes", r.key.size_bytes}, {"placement", name_of(r.key.placement)}, {"point", variant_text(r.key.variant)},
                         {"new_busbw_gbps", r.new_row.busbw_gbps}, {"reference_busbw_gbps", r.reference_row.busbw_gbps},
                         {"ratio", r.ratio}, {"new_band_gbps", r.new_band_gbps},
                         {"reference_band_gbps", r.reference_band_gbps}, {"verdict", verdict_name(r.verdict)},
                         {"fails", r.fails}, {"wrong_data", r.wrong_data}, {"footprint_differs", r.footprint_differs}});
  }
  // null without a gate (--target 0).
  j["acceptance"] = c.acceptance ? acceptance_json(*c.acceptance) : nlohmann::json();
  out << j.dump(2) << "\n";
}

}  // namespace ncclsweep
