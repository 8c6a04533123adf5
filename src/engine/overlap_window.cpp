#include "engine/overlap_window.hpp"

#include <algorithm>

namespace ncclsweep {

OverlapTimes summarize_rounds(const std::vector<OverlapRound>& rounds) {
  OverlapTimes t;
  if (rounds.empty()) return t;
  double comm_alone = 0, comm_under = 0, compute_alone = 0, compute_under = 0;
  int calls = 0, inside_total = 0;
  for (const OverlapRound& r : rounds) {
    comm_alone += r.comm_alone_s;
    comm_under += r.window.end - r.window.start;
    calls += r.calls;
    compute_alone += r.compute_alone_s;
    double inside_s = 0, overlapping_s = 0;
    int inside = 0, overlapping = 0;
    for (const TimeInterval& g : r.gemms) {
      if (g.start >= r.window.start && g.end <= r.window.end) inside_s += g.end - g.start, ++inside;
      if (g.end > r.window.start && g.start < r.window.end) overlapping_s += g.end - g.start, ++overlapping;
    }
    if (inside == 0) inside_s = overlapping_s, inside = overlapping;
    compute_under += inside > 0 ? inside_s / inside : 0;
    inside_total += inside;
    if (!r.gemms.empty()) {
      const double first = std::min(r.gemms.front().start, r.window.start);
      double last = r.window.end;
      for (const TimeInterval& g : r.gemms) last = std::max(last, g.end);
      t.overlapped_wall_s += last - first;
      t.serial_sum_s += r.comm_alone_s + static_cast<double>(r.gemms.size()) * r.compute_alone_s;
    }
  }
  const double n = static_cast<double>(rounds.size());
  t.comm_alone_s = calls > 0 ? comm_alone / calls : 0;
  t.comm_under_s = calls > 0 ? comm_under / calls : 0;
  t.compute_alone_s = compute_alone / n;
  t.compute_under_s = compute_under / n;
  t.overlapped_wall_s /= n;
  t.serial_sum_s /= n;
  t.compute_ops_under = static_cast<int>(inside_total / static_cast<int>(rounds.size()));
  return t;
}

}  // namespace ncclsweep
