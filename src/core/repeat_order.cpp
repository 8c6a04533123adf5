#include "core/repeat_order.hpp"

#include <algorithm>
#include <random>

#include "core/errors.hpp"
#include "spec/suggest.hpp"

namespace ncclsweep {

std::vector<ScheduledRun> schedule_repeats(int items, int repeats, const std::string& order, std::uint64_t seed) {
  std::vector<ScheduledRun> runs;
  runs.reserve(static_cast<std::size_t>(std::max(items, 0) * std::max(repeats, 0)));
  if (order == "sequential") {
    for (int item = 0; item < items; ++item)
      for (int repeat = 0; repeat < repeats; ++repeat) runs.push_back({item, repeat});
    return runs;
  }
  if (order != "interleaved" && order != "shuffled") {
    throw UsageError("unknown order '" + order + "'" + did_you_mean(order, {"sequential", "interleaved", "shuffled"}),
                     "order is sequential, interleaved or shuffled");
  }
  for (int repeat = 0; repeat < repeats; ++repeat)
    for (int item = 0; item < items; ++item) runs.push_back({item, repeat});
  if (order == "shuffled") {
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
