#include "transport/relay_step.hpp"

#include <algorithm>

#include "core/errors.hpp"

namespace ncclsweep {

void combine_steps(const RelayStep& from, RelayStep& into) {
  into.failed_rank = std::min(into.failed_rank, from.failed_rank);
  into.flag = std::max(into.flag, from.flag);
  into.gather = std::max(into.gather, from.gather);
  into.count += from.count;
  for (std::size_t i = 0; i < into.sums.size(); ++i) into.sums[i] += from.sums[i];
  for (std::size_t i = 0; i < into.bytes.size(); ++i) into.bytes[i] = std::max(into.bytes[i], from.bytes[i]);
  for (std::size_t i = 0; i < into.values.size(); ++i) into.values[i] = std::max(into.values[i], from.values[i]);
}

RelayStep reduce_times_step(const std::vector<double>& values) {
  if (values.size() > kReducedValues) throw RuntimeFailure("relay", "more values than one reduction takes");
  RelayStep step;
  for (std::size_t i = 0; i < values.size(); ++i) {
    step.values[2 * i] = values[i];
    step.values[2 * i + 1] = -values[i];  // the largest negation is the smallest value
    step.sums[i] = values[i];
  }
  return step;
}

std::vector<RankTimes> reduced_times(const RelayStep& combined, std::size_t count, int ranks) {
  std::vector<RankTimes> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = {-combined.values[2 * i + 1], combined.sums[i] / ranks, combined.values[2 * i]};
  }
  return out;
}

}  // namespace ncclsweep
