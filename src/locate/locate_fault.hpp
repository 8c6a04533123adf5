#pragma once
// --inject-fault for locate, a testing aid (docs/locate.md): slow down one rank's
// collectives, or only the traffic between two hosts, by a factor, so that locate can
// be shown to name exactly that host or that link.
//   R:slow=FACTOR               rank R waits (FACTOR-1) x each call's time after the call
//   link=HOSTA,HOSTB:slow=FACTOR  HOSTA's first rank in a group that also holds HOSTB's
//                                 ranks does so (one rank per group: two delayed ranks
//                                 would each wait on the other's delay, and the delays grow
//                                 without bound)
#include <string>
#include <vector>

namespace ncclsweep::locate {

struct SlowFault {
  int rank = -1;                  // rank form
  std::string host_a, host_b;     // link form
  double factor = 1;              // 1: no fault
  bool active() const { return factor > 1; }
};

// Throws UsageError naming the text and the accepted forms.
SlowFault parse_slow_fault(const std::string& text);

// The factor this rank's calls take in a group of `group_ranks` (ascending) whose hosts
// are `group_hosts` (the same order).
double slowdown_for(const SlowFault& fault, int rank, const std::vector<int>& group_ranks,
                    const std::vector<std::string>& group_hosts);

}  // namespace ncclsweep::locate
