#pragma once
// --inject-fault for locate, a testing aid (docs/locate.md): slow down one rank's
// collectives, or only the traffic between two hosts, by a factor, so that locate can
// be shown to name exactly that host or that link.
//   R:slow=FACTOR               rank R waits (FACTOR-1) x each call's time after the call
//   link=HOSTA,HOSTB:slow=FACTOR  HOSTA's ranks do so in groups that also hold HOSTB's ranks
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

// The factor this rank's calls take in a group of `group_hosts` (host names).
double slowdown_for(const SlowFault& fault, int rank, const std::string& host,
                    const std::vector<std::string>& group_hosts);

}  // namespace ncclsweep::locate
