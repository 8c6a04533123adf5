#include "report/printers.hpp"

#include <array>
#include <utility>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

constexpr std::array<std::pair<ReportFormat, SidePrinter>, 5> kSidePrinters{{
    {ReportFormat::table, print_side_table},
    {ReportFormat::md, print_side_markdown},
    {ReportFormat::csv, print_side_csv},
    {ReportFormat::json, print_side_json},
    {ReportFormat::svg, print_side_svg},
}};
constexpr std::array<std::pair<ReportFormat, ComparisonPrinter>, 4> kComparisonPrinters{{
    {ReportFormat::table, print_comparison_table},
    {ReportFormat::md, print_comparison_markdown},
    {ReportFormat::json, print_comparison_json},
    {ReportFormat::svg, print_comparison_svg},
}};

// The formats a printer table has, in its order: what an unsupported format's message lists.
template <typename Printer, std::size_t N>
constexpr std::array<ReportFormat, N> formats_of(const std::array<std::pair<ReportFormat, Printer>, N>& table) {
  std::array<ReportFormat, N> formats{};
  for (std::size_t i = 0; i < N; ++i) formats[i] = table[i].first;
  return formats;
}

}  // namespace

SidePrinter side_printer(ReportFormat format) {
  for (const auto& [f, printer] : kSidePrinters) {
    if (f == format) return printer;
  }
  throw unsupported_format(format, "a run's or nccl-tests output's busbw report", formats_of(kSidePrinters));
}

ComparisonPrinter comparison_printer(ReportFormat format) {
  for (const auto& [f, printer] : kComparisonPrinters) {
    if (f == format) return printer;
  }
  throw unsupported_format(format, "a comparison", formats_of(kComparisonPrinters));
}

std::vector<ReportFormat> comparison_formats() {
  const auto formats = formats_of(kComparisonPrinters);
  return {formats.begin(), formats.end()};
}

std::string identity_line(const SideIdentity& id) {
  std::string s(name_of(id.source));
  if (!id.name.empty()) s += " '" + id.name + "'";
  s += ": " + std::to_string(id.ranks) + " ranks on " + std::to_string(id.hosts) + " host(s)";
  if (!id.gpu.empty()) s += ", " + id.gpu;
  if (!id.nccl_version.empty()) s += ", NCCL " + id.nccl_version;
  if (!id.cuda_version.empty()) s += ", CUDA " + id.cuda_version;
  if (id.engine) s += ", engine " + std::string(name_of(*id.engine));
  return s;
}

std::vector<RowGroup> group_rows(const Side& side) {
  // Rows are sorted by key: collective, dtype, op, size, placement, variant. A group is
  // one (collective, dtype, op, variant); sizes come in order within it.
  std::vector<RowGroup> groups;
  std::vector<std::string> group_keys;
  for (const auto& row : side.rows) {
    const RowKey& k = row.key;
    std::string title = collective_name(k) + " " + dtype_name(k) + (k.op ? " " + op_name(k) : "");
    if (const std::string variant = variant_text(k.variant); !variant.empty()) title += " [" + variant + "]";
    std::size_t g = 0;
    while (g < groups.size() && groups[g].title != title) ++g;
    if (g == groups.size()) groups.push_back({title, {}});
    auto& sizes = groups[g].sizes;
    if (sizes.empty() || sizes.back().any().key.size_bytes != k.size_bytes) sizes.push_back({});
    (k.placement == Placement::in_place ? sizes.back().in_place : sizes.back().out_of_place) = &row;
  }
  return groups;
}

std::string verification(std::span<const SizeRow> sizes) {
  std::uint64_t wrong = 0;
  bool unchecked = false;
  for (const SizeRow& s : sizes) {
    for (const SideRow* r : {s.out_of_place, s.in_place}) {
      if (!r) continue;
      if (r->wrong) wrong += *r->wrong;
      else unchecked = true;
    }
  }
  if (wrong > 0) return std::to_string(wrong) + " wrong";
  return unchecked ? "unchecked" : "ok";
}

}  // namespace ncclsweep
