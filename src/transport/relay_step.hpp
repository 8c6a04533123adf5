#pragma once
// Every cross-rank operation a worker process needs (unique-id broadcast, agreement,
// time statistics, sums, status codes, a gather on rank 0) travels to its MPI rank as one
// RelayStep, and the MPI ranks combine the steps with a single MPI_Allreduce each.
// Because every step is the same MPI call, a rank whose worker died can still join the
// step the others are waiting in, marking it failed, and every worker of the group then
// stops instead of hanging. A step whose combination asks for a gather is followed, on
// every MPI rank alike, by one MPI_Gather of each rank's gather_value on rank 0 (never
// after a failed step, so a failed rank's MPI rank and the others still agree).
#include <nlohmann/json.hpp>

#include <array>
#include <climits>
#include <cstdint>
#include <vector>

#include "engine/coordinator.hpp"

namespace ncclsweep {

struct RelayStep {
  std::int32_t failed_rank = INT32_MAX;  // min over ranks: the lowest rank that failed
  std::int32_t flag = 0;                 // max over ranks
  std::int32_t gather = 0;               // max over ranks: gather every rank's gather_value on rank 0
  double gather_value = 0;               // this rank's value for that gather; not combined
  std::uint64_t count = 0;               // sum over ranks
  std::array<double, kReducedValues> sums{};  // element-wise sum
  std::array<std::uint8_t, 256> bytes{};      // element-wise max: a broadcast (only the root fills it) or status codes
  std::array<double, 64> values{};            // element-wise max: per-iteration times, a chunk per step

  bool failed() const { return failed_rank != INT32_MAX; }
};

// The combination MPI_Allreduce applies: `into` becomes into (+) from, field by field.
void combine_steps(const RelayStep& from, RelayStep& into);

// A step that reduces the min, avg and max of each of `values` (at most kReducedValues):
// the maximum of each value and of its negation, and its sum.
RelayStep reduce_times_step(const std::vector<double>& values);
// Those figures from the combination of every rank's reduce_times_step of `count` values.
std::vector<RankTimes> reduced_times(const RelayStep& combined, std::size_t count, int ranks);

// A combined step, and on rank 0 every rank's gather_value when the step asked for them.
struct CombinedStep {
  RelayStep step;
  std::vector<double> gathered;
};

// The worker wire's form, sent twice per step (worker to rank and back): each array
// without its trailing zeros, which reading puts back, since most steps fill a few
// entries of the 328 (a step in full was most of a search's time in JSON).
void to_json(nlohmann::json& j, const RelayStep& step);
void from_json(const nlohmann::json& j, RelayStep& step);

}  // namespace ncclsweep
