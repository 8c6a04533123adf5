#pragma once
// One locate measurement: one group of one step, one collective and size, one repeat.
// records.jsonl holds one per line; verdicts are made from a list of them alone.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "locate/locate_kinds.hpp"
#include "core/collective.hpp"
#include "core/units.hpp"

namespace ncclsweep::locate {

struct Measurement {
  LocatePhase phase = LocatePhase::host;
  int round = 0;           // 0 in the host phase
  std::vector<int> hosts;  // the host (host phase) or the pair of hosts, as host indices
  int rail = -1;           // rails phase: the local rank index on both hosts
  std::vector<int> ranks;  // the group's world ranks
  const CollectiveKind* collective = nullptr;  // all_gather, all_reduce or sendrecv
  Bytes bytes = 0;         // total size, nccl-tests convention
  int pass = 1;            // --passes: which run of the whole schedule
  int repeat = 0;          // over all passes: (pass - 1) x repeats per pass + the repeat in it
  double seconds = 0;      // per call, the slowest rank of the group
  double busbw_gbps = 0;

  // What repeats of the same measurement share ("all_gather 1 MiB").
  std::string test() const;
};

void to_json(nlohmann::json& j, const Measurement& m);
void from_json(const nlohmann::json& j, Measurement& m);

}  // namespace ncclsweep::locate
