#pragma once
// The order in which repeats of several items (sizes, sweep points) run. Interleaving
// or shuffling spreads slow drift (clocks, temperature, neighbours) over every item
// instead of loading it onto the last ones.
#include <cstdint>
#include <string>
#include <vector>

#include "core/name_table.hpp"

namespace ncclsweep {

// sequential: A A B B; interleaved: A B A B; shuffled: a permutation of the interleaved
// list fixed by a seed (the same on every rank and every run).
enum class RepeatOrder { sequential, interleaved, shuffled };
inline constexpr NameTable<RepeatOrder, 3> kRepeatOrderNames{"order",
                                                             {{{RepeatOrder::sequential, "sequential"},
                                                               {RepeatOrder::interleaved, "interleaved"},
                                                               {RepeatOrder::shuffled, "shuffled"}}}};
constexpr std::string_view name_of(RepeatOrder order) { return kRepeatOrderNames.name(order); }
inline RepeatOrder parse_repeat_order(std::string_view name) { return kRepeatOrderNames.parse(name); }

struct ScheduledRun {
  int item = 0;    // index of the size / point
  int repeat = 0;  // 0 .. repeats-1
  bool operator==(const ScheduledRun&) const = default;
};

// Each item's repeats run in increasing repeat order under every order (shuffled
// renumbers them as they come), so "repeat 0" is always its first.
std::vector<ScheduledRun> schedule_repeats(int items, int repeats, RepeatOrder order, std::uint64_t seed);

}  // namespace ncclsweep
