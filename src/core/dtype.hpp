#pragma once
// Element types and reduction operators, described once as data.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace ncclsweep {

// ncclDataType_t's values, named: the dtype table and the mpi engine use these, and the
// nccl engine checks each against nccl.h at compile time.
enum NcclTypeId : int {
  kNcclInt8 = 0, kNcclUint8 = 1, kNcclInt32 = 2, kNcclUint32 = 3, kNcclInt64 = 4, kNcclUint64 = 5,
  kNcclFloat16 = 6, kNcclFloat32 = 7, kNcclFloat64 = 8, kNcclBfloat16 = 9, kNcclFloat8e4m3 = 10, kNcclFloat8e5m2 = 11,
  kNcclTypeCount = 12
};

// How an element's bits encode a number; the check pattern decodes through this.
enum class Encoding { signed_int, unsigned_int, ieee_float, minifloat };

struct DataType {
  std::string_view name;  // "bfloat16"
  std::size_t bytes;      // element size
  int nccl_id;            // ncclDataType_t value, as nccl.h numbers it
  Encoding encoding;
  int exponent_bits = 0;  // minifloat only
  int mantissa_bits = 0;  // minifloat only
  int exponent_bias = 0;  // minifloat only
  bool finite_only = false;  // fp8 e4m3 has no infinity
};

// Throws UsageError listing the valid names.
const DataType& data_type(std::string_view name);
std::span<const DataType> all_data_types();

enum class ReduceOp { sum, prod, max, min, avg };
inline constexpr int kReduceOpCount = 5;

ReduceOp reduce_op(std::string_view name);  // throws UsageError listing the valid names
std::string_view name_of(ReduceOp op);
// ncclRedOp_t value: sum 0, prod 1, max 2, min 3, avg 4 (the nccl engine checks them).
constexpr int nccl_id(ReduceOp op) { return static_cast<int>(op); }

}  // namespace ncclsweep
