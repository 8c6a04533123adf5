#pragma once
// The order in which repeats of several items (sizes, sweep points) run. Interleaving
// or shuffling spreads slow drift (clocks, temperature, neighbours) over every item
// instead of loading it onto the last ones.
#include <cstdint>
#include <string>
#include <vector>

namespace ncclsweep {

struct ScheduledRun {
  int item = 0;    // index of the size / point
  int repeat = 0;  // 0 .. repeats-1
  bool operator==(const ScheduledRun&) const = default;
};

// sequential: A A B B; interleaved: A B A B; shuffled: a permutation of the interleaved
// list fixed by `seed` (the same on every rank and every run). Each item's repeats still
// run in increasing repeat order under shuffled, so "repeat 0" is always its first.
// Throws UsageError for another order name.
std::vector<ScheduledRun> schedule_repeats(int items, int repeats, const std::string& order, std::uint64_t seed);

}  // namespace ncclsweep
