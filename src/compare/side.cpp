#include "compare/side.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "core/checked_number.hpp"
#include "core/dtype.hpp"
#include "core/nccl_version.hpp"
#include "core/errors.hpp"

namespace ncclsweep {

bool operator<(const RowKey& a, const RowKey& b) {
  const auto in_place_last = [](const RowKey& k) { return k.placement == Placement::in_place ? 1 : 0; };
  return std::tie(a.collective, a.dtype, a.op, a.size_bytes, a.point) <
             std::tie(b.collective, b.dtype, b.op, b.size_bytes, b.point) ||
         (std::tie(a.collective, a.dtype, a.op, a.size_bytes, a.point) ==
              std::tie(b.collective, b.dtype, b.op, b.size_bytes, b.point) &&
          in_place_last(a) < in_place_last(b));
}

bool made_by_nccl_tests(const SideIdentity& side) { return side.engine == "nccl-tests"; }

void normalise_rows(Side& side) {
  std::stable_sort(side.rows.begin(), side.rows.end(),
                   [](const SideRow& a, const SideRow& b) { return a.key < b.key; });
  std::vector<SideRow> unique;
  for (auto& row : side.rows) {
    if (!unique.empty() && unique.back().key == row.key) {
      side.notes.push_back("duplicate row " + row_label(row.key) + ": kept the first");
      continue;
    }
    unique.push_back(std::move(row));
  }
  side.rows = std::move(unique);
}

std::string row_label(const RowKey& key) {
  std::string s = key.collective + " " + key.dtype;
  if (key.op != "none") s += " " + key.op;
  s += " " + format_bytes(key.size_bytes);
  if (key.placement == Placement::in_place) s += " in-place";
  if (!key.point.empty()) s += " [" + key.point + "]";
  return s;
}

std::string canonical_dtype(const std::string& name) {
  // nccl-tests' spellings that data_type() does not know.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kNcclTests{{
      {"f8e4m3", "fp8_e4m3"},
      {"f8e5m2", "fp8_e5m2"},
  }};
  for (const auto& [theirs, ours] : kNcclTests) {
    if (name == theirs) return std::string(ours);
  }
  try {
    return std::string(data_type(name).name);
  } catch (const UsageError&) {
    return name;
  }
}

std::string collective_from_program(const std::string& program) {
  std::string name = program.substr(program.find_last_of('/') + 1);
  for (const std::string suffix : {"_mpi", "_perf"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return name;
}

std::string nccl_version_string(const std::string& code) {
  if (code.empty() || code.find('.') != std::string::npos) return code;
  {
    const auto parsed = parse_integer_text(code);
    if (!parsed || *parsed < 0 || *parsed > 10000000) return code;
    return nccl_version_text(static_cast<int>(*parsed));
  }
}

}  // namespace ncclsweep
