#pragma once
// Every cross-rank operation a worker process needs (unique-id broadcast, agreement,
// time statistics, sums, status codes) travels to its MPI rank as one RelayStep, and
// the MPI ranks combine the steps with a single MPI_Allreduce each. Because every
// step is the same MPI call, a rank whose worker died can still join the step the
// others are waiting in, marking it failed, and every worker of the group then stops
// instead of hanging.
#include <nlohmann/json.hpp>

#include <array>
#include <climits>
#include <cstdint>

namespace ncclsweep {

struct RelayStep {
  std::int32_t failed_rank = INT32_MAX;  // min over ranks: the lowest rank that failed
  std::int32_t flag = 0;                 // max over ranks
  double min = 0;                        // min over ranks
  double max = 0;                        // max over ranks
  double sum = 0;                        // sum over ranks
  std::uint64_t count = 0;               // sum over ranks
  std::array<std::uint8_t, 256> bytes{}; // element-wise max: a broadcast (only the root fills it) or status codes
  std::array<double, 64> values{};       // element-wise max: per-iteration times, a chunk per step

  bool failed() const { return failed_rank != INT32_MAX; }
};

// The combination MPI_Allreduce applies: `into` becomes into (+) from, field by field.
void combine_steps(const RelayStep& from, RelayStep& into);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RelayStep, failed_rank, flag, min, max, sum, count, bytes, values)

}  // namespace ncclsweep
