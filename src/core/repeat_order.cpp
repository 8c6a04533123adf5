#include "core/repeat_order.hpp"

#include <algorithm>
#include <random>

namespace ncclsweep {

std::vector<ScheduledRun> schedule_repeats(int items, int repeats, RepeatOrder order, std::uint64_t seed) {
  std::vector<ScheduledRun> runs;
  runs.reserve(static_cast<std::size_t>(std::max(items, 0) * std::max(repeats, 0)));
  if (order == RepeatOrder::sequential) {
    for (int item = 0; item < items; ++item)
      for (int repeat = 0; repeat < repeats; ++repeat) runs.push_back({item, repeat});
    return runs;
  }
  for (int repeat = 0; repeat < repeats; ++repeat)
    for (int item = 0; item < items; ++item) runs.push_back({item, repeat});
  if (order == RepeatOrder::shuffled) {
    // mt19937_64's output is fixed by the standard; std::shuffle's use of it is not, so
    // a Fisher-Yates over the engine's raw output keeps the order portable.
    std::mt19937_64 engine(seed);
    for (std::size_t i = runs.size(); i > 1; --i) std::swap(runs[i - 1], runs[engine() % i]);
    // Renumber each item's repeats in the order they now run.
    std::vector<int> next(static_cast<std::size_t>(std::max(items, 0)), 0);
    for (ScheduledRun& run : runs) run.repeat = next[static_cast<std::size_t>(run.item)]++;
  }
  return runs;
}

}  // namespace ncclsweep
