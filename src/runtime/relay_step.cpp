#include "runtime/relay_step.hpp"

#include <algorithm>

namespace ncclsweep {

void combine_steps(const RelayStep& from, RelayStep& into) {
  into.failed_rank = std::min(into.failed_rank, from.failed_rank);
  into.flag = std::max(into.flag, from.flag);
  into.min = std::min(into.min, from.min);
  into.max = std::max(into.max, from.max);
  into.sum += from.sum;
  into.count += from.count;
  for (std::size_t i = 0; i < into.bytes.size(); ++i) into.bytes[i] = std::max(into.bytes[i], from.bytes[i]);
  for (std::size_t i = 0; i < into.values.size(); ++i) into.values[i] = std::max(into.values[i], from.values[i]);
}

}  // namespace ncclsweep
