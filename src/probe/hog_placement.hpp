#pragma once
// Whether the cpu-hog testing aid can slow the rank it names alone: its busy loops run on
// every core that rank may use, so a rank of another host allowed on one of those cores of
// the same machine (fake hosts of one machine, unbound ranks) is slowed alike, and probe
// could name neither host. Refused then, rather than passing as a test that proves little.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ncclsweep::probe {

struct RankPlacement {
  int rank = 0;
  std::string host;     // as ncclsweep names it (a fake host name included)
  std::string machine;  // the kernel's boot id: ranks with the same one share cores
  std::vector<int> cpus;  // allowed cores, ascending
};

// This process's placement (boot id from /proc/sys/kernel/random/boot_id, "" unreadable).
RankPlacement this_rank_placement(int rank, const std::string& host);

// Nothing when rank `hogged` of `ranks` (every rank, any order) can be hogged alone;
// otherwise the refusal (no such rank, or a core shared with another host's rank of the
// same machine) as a UsageError's message and fix.
struct HogRefusal {
  std::string message, fix;
  bool refused() const { return !message.empty(); }
};
HogRefusal cpu_hog_refusal(const std::vector<RankPlacement>& ranks, int hogged);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankPlacement, rank, host, machine, cpus)

}  // namespace ncclsweep::probe
