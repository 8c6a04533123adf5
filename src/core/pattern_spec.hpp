#pragma once
// Bridges the rich host types (DataType, CollectiveKind) to the plain structs the
// device-friendly check pattern takes.
#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/pattern.hpp"

namespace ncclsweep {

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
