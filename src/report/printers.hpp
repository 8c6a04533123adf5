#pragma once
// Report and comparison printers behind one small interface: a --format value picks a
// function that writes the whole document to a stream. A new format is one new file,
// one value in core/report_format.hpp and one line in printers.cpp.
#include <optional>
#include <ostream>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "compare/comparison.hpp"
#include "compare/side.hpp"
#include "core/report_format.hpp"

namespace ncclsweep {

struct PrintStyle {
  bool colour = false;                  // ANSI colour (terminal table on a TTY, without NO_COLOR)
  std::optional<double> link_peak_gbps; // per direction, from configs/systems/; adds "% of peak"
  std::string link_name;                // "H200 NVLink"
};

using SidePrinter = void (*)(const Side&, const PrintStyle&, std::ostream&);
using ComparisonPrinter = void (*)(const Comparison&, const PrintStyle&, std::ostream&);

// table | md | csv | json | svg. Throws UsageError naming the valid formats.
SidePrinter side_printer(ReportFormat format);
// table | md | json | svg. Throws UsageError naming the valid formats.
ComparisonPrinter comparison_printer(ReportFormat format);
// The formats comparison_printer has: what `compare --format` takes.
std::vector<ReportFormat> comparison_formats();

void print_side_table(const Side& side, const PrintStyle& style, std::ostream& out);
void print_side_markdown(const Side& side, const PrintStyle& style, std::ostream& out);
void print_side_csv(const Side& side, const PrintStyle& style, std::ostream& out);
void print_side_json(const Side& side, const PrintStyle& style, std::ostream& out);
void print_side_svg(const Side& side, const PrintStyle& style, std::ostream& out);
// Several inputs in one plot (`report A B ...`): colour per collective, dash per input.
void print_sides_svg(std::span<const Side> sides, const PrintStyle& style, std::ostream& out);
void print_comparison_table(const Comparison& c, const PrintStyle& style, std::ostream& out);
void print_comparison_markdown(const Comparison& c, const PrintStyle& style, std::ostream& out);
void print_comparison_json(const Comparison& c, const PrintStyle& style, std::ostream& out);
void print_comparison_svg(const Comparison& c, const PrintStyle& style, std::ostream& out);

// What reports share: the identity in one line (no paths, hosts or times: it goes into
// the committed summary.md), and rows grouped per collective for tables.
std::string identity_line(const SideIdentity& id);

struct SizeRow {
  const SideRow* out_of_place = nullptr;
  const SideRow* in_place = nullptr;
  const SideRow& any() const { return out_of_place ? *out_of_place : *in_place; }
};
struct RowGroup {
  std::string title;  // "all_gather float32", "reduce_scatter float32 sum", "+ point"
  std::vector<SizeRow> sizes;  // ascending
};
std::vector<RowGroup> group_rows(const Side& side);

// Over every placement of the given sizes: "ok", "3 wrong" (any wrong element wins),
// or "unchecked".
std::string verification(std::span<const SizeRow> sizes);

}  // namespace ncclsweep
