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
  return std::tie(a.collective, a.dtype, a.op, a.size_bytes, a.variant) <
             std::tie(b.collective, b.dtype, b.op, b.size_bytes, b.variant) ||
         (std::tie(a.collective, a.dtype, a.op, a.size_bytes, a.variant) ==
              std::tie(b.collective, b.dtype, b.op, b.size_bytes, b.variant) &&
          in_place_last(a) < in_place_last(b));
}

bool made_by_nccl_tests(const SideIdentity& side) { return side.source != SideSource::ncclsweep_run; }

int most_repeats(const Side& side) {
  int most = 1;
  for (const SideRow& row : side.rows) most = std::max(most, row.repeats);
  return most;
}

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
  std::string s = std::string(key.collective->name) + " " + std::string(key.dtype->name);
  if (key.op) s += " " + std::string(name_of(*key.op));
  s += " " + format_bytes(key.size_bytes);
  if (key.placement == Placement::in_place) s += " in-place";
  if (const std::string variant = variant_text(key.variant); !variant.empty()) s += " [" + variant + "]";
  return s;
}

std::string variant_text(const RowVariant& v) {
  std::string text = v.point;
  const auto tag = [&text](const std::string& part) {
    if (!part.empty()) text += (text.empty() ? "" : " ") + part;
  };
  if (v.groups) tag("on " + communicator_text(*v.groups));
  tag(call_modes_text(v.buffers, v.launch));
  if (v.conditions) tag(footprint_text(v.conditions->footprint, v.conditions->cache));
  if (v.compute) tag("under " + label_of(*v.compute));
  return text;
}

const DataType* nccl_tests_dtype(std::string_view type) {
  // nccl-tests' spellings that data_type() does not know.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kNcclTests{{
      {"f8e4m3", "fp8_e4m3"},
      {"f8e5m2", "fp8_e5m2"},
  }};
  std::string_view dtype = type;
  for (const auto& [theirs, ours] : kNcclTests) {
    if (type == theirs) dtype = ours;
  }
  try {
    return &data_type(dtype);  // ours, and nccl-tests' float, half, double, char, int...
  } catch (const UsageError&) {
    return nullptr;
  }
}

std::optional<RowKey> nccl_tests_key(const std::string& collective, const std::string& type, const std::string& redop,
                                     Bytes size, Placement placement, std::string& skipped) {
  RowKey key;
  key.size_bytes = size;
  key.placement = placement;
  for (const CollectiveKind& kind : all_collectives()) {
    if (kind.name == collective) key.collective = &kind;
  }
  if (!key.collective) {
    skipped = collective + ": not a collective ncclsweep measures";
    return std::nullopt;
  }
  key.dtype = nccl_tests_dtype(type);
  if (!key.dtype) {
    skipped = "type " + type + ": not one ncclsweep measures";
    return std::nullopt;
  }
  if (redop != "none" && key.collective->reduces) {
    try {
      key.op = reduce_op(redop);
    } catch (const UsageError&) {
      skipped = "redop " + redop + ": not one ncclsweep measures";
      return std::nullopt;
    }
  }
  return key;
}

void note_skipped_row(Side& side, const std::string& skipped) {
  const std::string note = "rows skipped: " + skipped;
  if (std::find(side.notes.begin(), side.notes.end(), note) == side.notes.end()) side.notes.push_back(note);
}

int split_communicator_ranks(Side& side, int ranks, std::size_t groups, const std::string& test,
                             const SourcePosition& where) {
  if (groups <= 1) return ranks;
  const int count = static_cast<int>(groups);
  if (ranks % count != 0) {
    throw UsageError(test + " split " + std::to_string(ranks) + " ranks into " + std::to_string(count) +
                         " groups of unequal size: busbw is of no one rank count",
                     "give a test whose ranks form one communicator, or groups of equal size", where);
  }
  side.notes.push_back(test + " ran " + std::to_string(count) + " communicators of " + std::to_string(ranks / count) +
                       " ranks at once (NCCL_TESTS_SPLIT): its busbw is of one of them");
  return ranks / count;
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
