#pragma once
// --inject-fault for locate, a testing aid (docs/locate.md): slow down one rank's
// collectives, or only the traffic between two hosts, by a factor, so that locate can
// be shown to name exactly that host or that link.
//   R:slow=FACTOR                 every group that holds rank R
//   link=HOSTA,HOSTB:slow=FACTOR  every group that holds ranks of both hosts
//   ranks=R1,R2:slow=FACTOR       every group of exactly these two ranks (a GPU pair
//                                 within a host, in the gpus steps)
// takes about FACTOR x its time: after each timed call, each of its ranks waits
// (FACTOR-1) x the call's median time in the warm-up (Engine::slow_down), a fixed delay. All ranks of the group wait alike, so none
// of them spins in the next call waiting for a delayed one (on an oversubscribed CPU
// such spinning takes the cores other groups of the step need, and slows them too).
#include <string>
#include <vector>

namespace ncclsweep::locate {

struct SlowFault {
  int rank = -1;                  // rank form
  std::string host_a, host_b;     // link form
  std::vector<int> pair;          // ranks form: the two ranks, ascending
  double factor = 1;              // 1: no fault
  bool active() const { return factor > 1; }
};

// Throws UsageError naming the text and the accepted forms.
SlowFault parse_slow_fault(const std::string& text);

// The factor the calls of a group take: its ranks `group_ranks` (ascending) are on the
// hosts `group_hosts` (the same order).
double slowdown_for(const SlowFault& fault, const std::vector<int>& group_ranks,
                    const std::vector<std::string>& group_hosts);

}  // namespace ncclsweep::locate
