#pragma once
// core/dtype.hpp names NCCL's numeric type and op ids so that code without nccl.h (the
// mpi engine, the log importer) can use them; here each is checked against nccl.h.
#include <nccl.h>

#include "core/dtype.hpp"

namespace ncclsweep {

constexpr bool same_id(int ours, int nccl) { return ours == nccl; }

static_assert(same_id(kNcclInt8, ncclInt8) && same_id(kNcclUint8, ncclUint8));
static_assert(same_id(kNcclInt32, ncclInt32) && same_id(kNcclUint32, ncclUint32));
static_assert(same_id(kNcclInt64, ncclInt64) && same_id(kNcclUint64, ncclUint64));
static_assert(same_id(kNcclFloat16, ncclFloat16) && same_id(kNcclFloat32, ncclFloat32) && same_id(kNcclFloat64, ncclFloat64));
static_assert(same_id(kNcclBfloat16, ncclBfloat16));
static_assert(same_id(kNcclFloat8e4m3, ncclFloat8e4m3) && same_id(kNcclFloat8e5m2, ncclFloat8e5m2));
static_assert(same_id(kNcclTypeCount, ncclNumTypes));

static_assert(same_id(nccl_id(ReduceOp::sum), ncclSum) && same_id(nccl_id(ReduceOp::prod), ncclProd));
static_assert(same_id(nccl_id(ReduceOp::max), ncclMax) && same_id(nccl_id(ReduceOp::min), ncclMin));
static_assert(same_id(nccl_id(ReduceOp::avg), ncclAvg) && same_id(kReduceOpCount, ncclNumOps));

}  // namespace ncclsweep
