#pragma once
// Bridges the rich host types (DataType, CollectiveKind) to the plain structs the
// device-friendly check pattern takes.
#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/pattern.hpp"

namespace ncclsweep {

// core/pattern.hpp mirrors these enums as plain ints for the device; a change to either
// side that the other does not follow stops the build here.
static_assert(pattern::kSignedInt == static_cast<int>(Encoding::signed_int));
static_assert(pattern::kUnsignedInt == static_cast<int>(Encoding::unsigned_int));
static_assert(pattern::kIeeeFloat == static_cast<int>(Encoding::ieee_float));
static_assert(pattern::kMinifloat == static_cast<int>(Encoding::minifloat));
static_assert(pattern::kGathered == static_cast<int>(OutputLayout::gathered));
static_assert(pattern::kReducedSlice == static_cast<int>(OutputLayout::reduced_slice));
static_assert(pattern::kReducedWhole == static_cast<int>(OutputLayout::reduced_whole));
static_assert(pattern::kReducedAtRoot == static_cast<int>(OutputLayout::reduced_at_root));
static_assert(pattern::kFromRoot == static_cast<int>(OutputLayout::from_root));
static_assert(pattern::kTransposed == static_cast<int>(OutputLayout::transposed));
static_assert(pattern::kFromPrevious == static_cast<int>(OutputLayout::from_previous));
static_assert(pattern::kSum == static_cast<int>(ReduceOp::sum) && pattern::kProd == static_cast<int>(ReduceOp::prod));
static_assert(pattern::kMax == static_cast<int>(ReduceOp::max) && pattern::kMin == static_cast<int>(ReduceOp::min));
static_assert(pattern::kAvg == static_cast<int>(ReduceOp::avg) && kReduceOpCount == pattern::kAvg + 1);

inline pattern::ElementFormat element_format(const DataType& t) {
  return {static_cast<int>(t.encoding), static_cast<int>(t.bytes), t.exponent_bits, t.mantissa_bits,
          t.exponent_bias, t.finite_only};
}

inline pattern::CheckSpec check_spec(const CollectiveKind& kind, const DataType& t, ReduceOp op, std::uint64_t count,
                                     int rank, int nranks, int root) {
  const bool integer = t.encoding == Encoding::signed_int || t.encoding == Encoding::unsigned_int;
  return {static_cast<int>(kind.layout), rank, nranks, root, count, static_cast<int>(op), integer};
}

}  // namespace ncclsweep
