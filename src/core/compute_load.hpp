#pragma once
// The compute a collective is measured under (docs/overlap.md): a GEMM of one shape and
// dtype kept running on its own stream (nccl engine: cuBLAS) or thread (mpi engine: a
// blocked matrix multiply on the rank's cores, a CPU analogue) while the collective runs.
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/dtype.hpp"
#include "core/name_table.hpp"

namespace ncclsweep {

enum class ComputeKind { gemm };
inline constexpr NameTable<ComputeKind, 1> kComputeKindNames{"compute kind", {{{ComputeKind::gemm, "gemm"}}}};
constexpr std::string_view name_of(ComputeKind kind) { return kComputeKindNames.name(kind); }

// Where the compute ran: on the GPU beside NCCL, or the mpi engine's CPU analogue.
enum class ComputeSite { gpu, cpu_analogue };
inline constexpr NameTable<ComputeSite, 2> kComputeSiteNames{
    "compute site", {{{ComputeSite::gpu, "gpu"}, {ComputeSite::cpu_analogue, "cpu-analogue"}}}};
constexpr std::string_view name_of(ComputeSite site) { return kComputeSiteNames.name(site); }

// C[m x n] = A[m x k] * B[k x n], in `dtype` (accumulated in float32 on the GPU).
struct ComputeLoad {
  ComputeKind kind = ComputeKind::gemm;
  std::uint64_t m = 0, n = 0, k = 0;
  const DataType* dtype = nullptr;  // points into the dtype table: compares in table order
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
  auto operator<=>(const ComputeLoad&) const = default;
};

// The dtypes a GEMM load may have: the ones cuBLAS multiplies (bfloat16, float16,
// float32, float64). Throws UsageError naming the others.
const DataType& compute_dtype(std::string_view name);

// "gemm:8192x8192x8192:bf16" (the --with-compute form). Throws UsageError naming the
// text and the form; `where` names the flag or file position.
ComputeLoad parse_compute_load(const std::string& text, const std::string& where = "--with-compute");

// "gemm:8192x8192x8192:bfloat16": parse_compute_load reads it back.
std::string to_text(const ComputeLoad& load);

// "gemm 8192x8192x8192 bfloat16": for titles.
std::string label_of(const ComputeLoad& load);

}  // namespace ncclsweep
