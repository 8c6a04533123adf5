// The report as a terminal table and as Markdown (GitHub tables, details folded).
#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "report/printers.hpp"

namespace ncclsweep {
namespace {

std::string busbw_text(const SideRow* row) { return row ? significant3(row->busbw_gbps) : "-"; }

std::string time_text(const SideRow* row) { return row ? significant3(row->time_us) : "-"; }

std::string peak_share(const SizeRow& s, const PrintStyle& style) {
  if (!style.link_peak_gbps || *style.link_peak_gbps <= 0) return "";
  double best = 0;
  for (const SideRow* r : {s.out_of_place, s.in_place}) {
    if (r) best = std::max(best, r->busbw_gbps);
  }
  return printf_text("%.1f%%", 100 * best / *style.link_peak_gbps);
}

// nccl-tests' closing "# Avg bus bandwidth": the mean busbw over every row of the group,
// both placements. Where the group is exactly one nccl-tests test's rows, the file's own
// figure with the digits it prints (it averages the unrounded figures, which the rows'
// printed digits cannot give back); otherwise the mean of the rows, to 3 digits.
std::string average_busbw_text(const Side& side, const RowGroup& g) {
  std::vector<RowKey> keys;
  double sum = 0;
  int n = 0;
  for (const auto& s : g.sizes) {
    for (const SideRow* r : {s.out_of_place, s.in_place}) {
      if (r) sum += r->busbw_gbps, ++n, keys.push_back(r->key);
    }
  }
  std::sort(keys.begin(), keys.end());
  for (const PrintedAverage& printed : side.printed_averages) {
    if (printed.every_row_kept && printed.rows == keys) return printed.text;
  }
  return significant3(n ? sum / n : 0);
}

// The row's own spread as a percentage (repeats' half range over the median, or nccl-tests
// -I percentiles, or twice a record's relative standard error): the larger placement's.
std::string spread_text(const SizeRow& s) {
  std::optional<double> spread;
  for (const SideRow* r : {s.out_of_place, s.in_place}) {
    if (r && r->measured_spread) spread = std::max(spread.value_or(0), *r->measured_spread);
  }
  return spread ? printf_text("%.1f%%", *spread * 100) : "-";
}

const SideRow* best_row(const RowGroup& g) {
  const SideRow* best = nullptr;
  for (const auto& s : g.sizes) {
    for (const SideRow* r : {s.out_of_place, s.in_place}) {
      if (r && (!best || r->busbw_gbps > best->busbw_gbps)) best = r;
    }
  }
  return best;
}

}  // namespace

void print_side_table(const Side& side, const PrintStyle& style, std::ostream& out) {
  const char* bold = style.colour ? "\033[1m" : "";
  const char* plain = style.colour ? "\033[0m" : "";
  const char* red = style.colour ? "\033[31m" : "";
  out << bold << identity_line(side.identity) << plain << "\n";
  for (const RowGroup& g : group_rows(side)) {
    out << "\n" << bold << g.title << plain << "\n";
    out << printf_text("%12s %14s %12s %14s %12s %14s %8s %10s%s\n", "size", "count", "time oop us", "busbw oop GB/s",
                       "time ip us", "busbw ip GB/s", "spread", "check",
                       style.link_peak_gbps ? "  % of peak (best placement)" : "");
    for (const SizeRow& s : g.sizes) {
      const std::string check = verification({&s, 1});
      const bool bad = check.find("wrong") != std::string::npos;
      out << printf_text("%12s %14llu %12s %14s %12s %14s %8s %s%10s%s", format_bytes(s.any().key.size_bytes).c_str(),
                         static_cast<unsigned long long>(s.any().count), time_text(s.out_of_place).c_str(),
                         busbw_text(s.out_of_place).c_str(), time_text(s.in_place).c_str(),
                         busbw_text(s.in_place).c_str(), spread_text(s).c_str(), bad ? red : "", check.c_str(),
                         bad ? plain : "");
      if (style.link_peak_gbps) {
        out << printf_text(" %10s", peak_share(s, style).c_str());
      }
      out << "\n";
    }
    out << "Avg bus bandwidth: " << average_busbw_text(side, g) << " GB/s (" << g.title << ", every size, both placements)\n";
  }
  for (const auto& note : side.notes) out << "note: " << note << "\n";
}

void print_side_markdown(const Side& side, const PrintStyle& style, std::ostream& out) {
  const std::vector<RowGroup> groups = group_rows(side);
  out << "### " << identity_line(side.identity) << "\n\n";
  out << "| collective | sizes | best busbw (GB/s) | at | avg busbw (GB/s) | verification |\n|---|---|---:|---|---:|---|\n";
  for (const RowGroup& g : groups) {
    const SideRow* best = best_row(g);
    out << "| " << g.title << " | " << format_bytes(g.sizes.front().any().key.size_bytes) << " .. "
        << format_bytes(g.sizes.back().any().key.size_bytes) << " (" << g.sizes.size() << ") | "
        << significant3(best->busbw_gbps) << " | " << format_bytes(best->key.size_bytes)
        << (best->key.placement == Placement::in_place ? " in-place" : "") << " | " << average_busbw_text(side, g) << " | "
        << verification(g.sizes) << " |\n";
  }
  for (const RowGroup& g : groups) {
    out << "\n<details><summary>" << g.title << ": busbw per size</summary>\n\n";
    out << "| size | out-of-place busbw (GB/s) | in-place busbw (GB/s) | spread | verification |"
        << (style.link_peak_gbps ? " % of " + style.link_name + " peak (best placement) |" : "") << "\n";
    out << "|---:|---:|---:|---:|---|" << (style.link_peak_gbps ? "---:|" : "") << "\n";
    for (const SizeRow& s : g.sizes) {
      out << "| " << format_bytes(s.any().key.size_bytes) << " | " << busbw_text(s.out_of_place) << " | "
          << busbw_text(s.in_place) << " | " << spread_text(s) << " | " << verification({&s, 1}) << " |";
      if (style.link_peak_gbps) out << " " << peak_share(s, style) << " |";
      out << "\n";
    }
    out << "\n</details>\n";
  }
  if (!side.notes.empty()) {
    out << "\nNotes:\n";
    for (const auto& note : side.notes) out << "- " << note << "\n";
  }
}

}  // namespace ncclsweep
