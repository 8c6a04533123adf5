#include "report/printers.hpp"

#include <array>
#include <utility>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

constexpr std::array<std::pair<std::string_view, SidePrinter>, 5> kSidePrinters{{
    {"table", print_side_table},
    {"md", print_side_markdown},
    {"csv", print_side_csv},
    {"json", print_side_json},
    {"svg", print_side_svg},
}};
constexpr std::array<std::pair<std::string_view, ComparisonPrinter>, 4> kComparisonPrinters{{
    {"table", print_comparison_table},
    {"md", print_comparison_markdown},
    {"json", print_comparison_json},
    {"svg", print_comparison_svg},
}};

template <typename Table>
auto find_printer(const Table& table, std::string_view format) {
  std::string names;
  for (const auto& [name, printer] : table) {
    if (name == format) return printer;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  throw UsageError("unknown format '" + std::string(format) + "'", "use --format with one of: " + names);
}

}  // namespace

SidePrinter side_printer(std::string_view format) { return find_printer(kSidePrinters, format); }
ComparisonPrinter comparison_printer(std::string_view format) { return find_printer(kComparisonPrinters, format); }

std::string identity_line(const SideIdentity& id) {
  std::string s = id.source;
  if (!id.name.empty()) s += " '" + id.name + "'";
  s += ": " + std::to_string(id.ranks) + " ranks on " + std::to_string(id.hosts) + " host(s)";
  if (!id.gpu.empty()) s += ", " + id.gpu;
  if (!id.nccl_version.empty()) s += ", NCCL " + id.nccl_version;
  if (!id.cuda_version.empty()) s += ", CUDA " + id.cuda_version;
  if (!id.engine.empty() && id.engine != "nccl-tests") s += ", engine " + id.engine;
  return s;
}

std::vector<RowGroup> group_rows(const Side& side) {
  // Rows are sorted by key: collective, dtype, op, size, placement, point. A group is
  // one (collective, dtype, op, point); sizes come in order within it.
  std::vector<RowGroup> groups;
  std::vector<std::string> group_keys;
  for (const auto& row : side.rows) {
    const RowKey& k = row.key;
    std::string title = collective_name(k) + " " + dtype_name(k) + (k.op ? " " + op_name(k) : "");
    if (!k.point.empty()) title += " [" + k.point + "]";
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
