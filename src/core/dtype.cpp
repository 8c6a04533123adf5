#include "core/dtype.hpp"

#include <array>
#include <iterator>
#include <vector>
#include <utility>

#include "core/errors.hpp"
#include "core/list_text.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {
namespace {

constexpr std::array<DataType, kNcclTypeCount> kDataTypes{{
    {"int8", 1, kNcclInt8, Encoding::signed_int},
    {"uint8", 1, kNcclUint8, Encoding::unsigned_int},
    {"int32", 4, kNcclInt32, Encoding::signed_int},
    {"uint32", 4, kNcclUint32, Encoding::unsigned_int},
    {"int64", 8, kNcclInt64, Encoding::signed_int},
    {"uint64", 8, kNcclUint64, Encoding::unsigned_int},
    {"float16", 2, kNcclFloat16, Encoding::minifloat, 5, 10, 15},
    {"float32", 4, kNcclFloat32, Encoding::ieee_float},
    {"float64", 8, kNcclFloat64, Encoding::ieee_float},
    {"bfloat16", 2, kNcclBfloat16, Encoding::minifloat, 8, 7, 127},
    {"fp8_e4m3", 1, kNcclFloat8e4m3, Encoding::minifloat, 4, 3, 7, true},
    {"fp8_e5m2", 1, kNcclFloat8e5m2, Encoding::minifloat, 5, 2, 15},
}};
// The table is in ncclDataType_t order: a dtype's id is its place.
static_assert([] {
  for (std::size_t i = 0; i < kDataTypes.size(); ++i) {
    if (kDataTypes[i].nccl_id != static_cast<int>(i)) return false;
  }
  return true;
}());

constexpr std::array<std::string_view, kReduceOpCount> kOpNames{"sum", "prod", "max", "min", "avg"};

}  // namespace

std::span<const DataType> all_data_types() { return kDataTypes; }

// nccl-tests' and PyTorch's spellings, so copied command lines work.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kAliases{{
    {"float", "float32"}, {"half", "float16"}, {"double", "float64"}, {"bf16", "bfloat16"},
    {"int", "int32"}, {"fp16", "float16"}, {"fp32", "float32"}, {"char", "int8"},
}};

const DataType& data_type(std::string_view name) {
  for (const auto& [alias, canonical] : kAliases) {
    if (alias == name) name = canonical;
  }
  for (const auto& t : kDataTypes) {
    if (t.name == name) return t;
  }
  std::array<std::string_view, kDataTypes.size()> names{};
  for (std::size_t i = 0; i < kDataTypes.size(); ++i) names[i] = kDataTypes[i].name;
  std::vector<std::string> candidates(names.begin(), names.end());
  for (const auto& [alias, canonical] : kAliases) candidates.emplace_back(alias);
  throw UsageError("unknown dtype '" + std::string(name) + "'" + did_you_mean(name, candidates),
                   "use one of: " + join_text(names));
}

ReduceOp reduce_op(std::string_view name) {
  for (int i = 0; i < kReduceOpCount; ++i) {
    if (kOpNames[i] == name) return static_cast<ReduceOp>(i);
  }
  throw UsageError("unknown op '" + std::string(name) + "'" +
                       did_you_mean(name, std::vector<std::string>(std::begin(kOpNames), std::end(kOpNames))),
                   "use one of: " + join_text(kOpNames));
}

std::string_view name_of(ReduceOp op) { return kOpNames[static_cast<int>(op)]; }

}  // namespace ncclsweep
