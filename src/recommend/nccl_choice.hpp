#pragma once
// NCCL's algorithm and protocol choice for a measured size, as a point's TUNING log
// recorded it in run.json (`points[].algorithms`: "AllGather 524288 B: RING/LL, 24 channels").
#include <optional>
#include <string>

#include "core/collective.hpp"
#include "core/units.hpp"
#include "results/record.hpp"

namespace ncclsweep {

struct NcclChoice {
  std::string algorithm;  // as NCCL logs it: "RING", "NVLS_TREE"
  std::string protocol;   // "LL", "LL128", "SIMPLE"
  int channels = -1;
};

// What the point's log says NCCL chose for `collective` at `size` (the total size ncclsweep
// records) on `ranks` ranks; none when not logged. AllGather and ReduceScatter log one
// rank's share, the others the whole buffer.
std::optional<NcclChoice> logged_choice(const PointOutcome& point, const CollectiveKind& collective, Bytes size,
                                        int ranks);

}  // namespace ncclsweep
