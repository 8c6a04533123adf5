#include "core/compute_load.hpp"

#include <array>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

constexpr std::uint64_t kLargestDimension = 1u << 20;

[[noreturn]] void refuse(const std::string& text, const std::string& where, const std::string& why) {
  throw UsageError(where + " '" + text + "': " + why,
                   "write gemm:MxNxK:DTYPE, e.g. gemm:8192x8192x8192:bf16 (dtype bfloat16, float16, float32 or float64)");
}

std::uint64_t dimension(const std::string& part, const std::string& text, const std::string& where) {
  if (part.empty() || part.size() > 7 || part.find_first_not_of("0123456789") != std::string::npos) {
    refuse(text, where, "'" + part + "' is not a whole number");
  }
  const std::uint64_t value = std::stoull(part);
  if (value == 0 || value > kLargestDimension) refuse(text, where, "each of M, N, K is 1 .. 1048576");
  return value;
}

}  // namespace

const DataType& compute_dtype(std::string_view name) {
  const DataType& dtype = data_type(name);
  constexpr std::array kMultiplied{kNcclBfloat16, kNcclFloat16, kNcclFloat32, kNcclFloat64};
  for (const int id : kMultiplied) {
    if (dtype.nccl_id == id) return dtype;
  }
  throw UsageError("a GEMM load cannot be " + std::string(dtype.name), "use bfloat16, float16, float32 or float64");
}

ComputeLoad parse_compute_load(const std::string& text, const std::string& where) {
  const auto first = text.find(':');
  const auto last = text.rfind(':');
  if (first == std::string::npos || first == last) refuse(text, where, "expected KIND:MxNxK:DTYPE");
  ComputeLoad load;
  const std::string kind = text.substr(0, first);
  if (!kComputeKindNames.find(kind)) refuse(text, where, "unknown compute kind '" + kind + "' (gemm is the one)");
  load.kind = *kComputeKindNames.find(kind);
  const std::string shape = text.substr(first + 1, last - first - 1);
  const auto x1 = shape.find('x');
  const auto x2 = x1 == std::string::npos ? x1 : shape.find('x', x1 + 1);
  if (x2 == std::string::npos || shape.find('x', x2 + 1) != std::string::npos) {
    refuse(text, where, "the shape '" + shape + "' is not MxNxK");
  }
  load.m = dimension(shape.substr(0, x1), text, where);
  load.n = dimension(shape.substr(x1 + 1, x2 - x1 - 1), text, where);
  load.k = dimension(shape.substr(x2 + 1), text, where);
  try {
    load.dtype = &compute_dtype(text.substr(last + 1));
  } catch (const UsageError& e) {
    refuse(text, where, e.what());
  }
  return load;
}

std::string to_text(const ComputeLoad& load) {
  return std::string(name_of(load.kind)) + ":" + std::to_string(load.m) + "x" + std::to_string(load.n) + "x" +
         std::to_string(load.k) + ":" + std::string(load.dtype ? load.dtype->name : "?");
}

std::string label_of(const ComputeLoad& load) {
  return std::string(name_of(load.kind)) + " " + std::to_string(load.m) + "x" + std::to_string(load.n) + "x" +
         std::to_string(load.k) + " " + std::string(load.dtype ? load.dtype->name : "?");
}

}  // namespace ncclsweep
