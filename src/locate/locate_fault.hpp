#pragma once
// --inject-fault for locate, a testing aid (docs/locate.md): slow down one rank's
// collectives, or only the traffic between two hosts, by a factor, so that locate can
// be shown to name exactly that host or that link.
//   R:slow=FACTOR                 every group that holds rank R
//   link=HOSTA,HOSTB:slow=FACTOR  every group that holds ranks of both hosts
//   ranks=R1,R2:slow=FACTOR       every group of exactly these two ranks (a GPU pair
//                                 within a host, in the gpus steps)
// takes about FACTOR x its time: on every rank of the group, each timed call runs FACTOR
// times (Engine::slow_down). The call's own work, repeated, rather than a sleep: all ranks
// of the group stay in step (a sleeping rank made the others spin in the next call, and
// on an oversubscribed CPU that spinning slowed the other groups too). On such a CPU the
// slowed group still reads above 1/FACTOR of the others: while they wait for it, it has
// the cores more to itself (10 read about 0.3x with 8 ranks on 2 cores).
#include <string>
#include <vector>

namespace ncclsweep::locate {

struct SlowFault {
  int rank = -1;                  // rank form
  std::string host_a, host_b;     // link form
  std::vector<int> pair;          // ranks form: the two ranks, ascending
  double factor = 1;              // whole calls per call; 1: no fault
  bool active() const { return factor > 1; }
};

// Throws UsageError naming the text and the accepted forms.
SlowFault parse_slow_fault(const std::string& text);

// The factor the calls of a group take: its ranks `group_ranks` (ascending) are on the
// hosts `group_hosts` (the same order).
double slowdown_for(const SlowFault& fault, const std::vector<int>& group_ranks,
                    const std::vector<std::string>& group_hosts);

}  // namespace ncclsweep::locate
