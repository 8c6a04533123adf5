#pragma once
// Locate records built for the verdict tests: a MeasurementRecord with its place in the
// schedule, the fields locate's judge reads (busbw, the time per call, the test).
#include <string>
#include <utility>
#include <vector>

#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "results/record.hpp"

namespace ncclsweep::testing {

// One repeat of `collective` at 1 MiB on `hosts` (the ranks of `group`) in `phase`, at
// `busbw_gbps`; its time per call 1e-3 / busbw.
inline MeasurementRecord locate_record(LocatePhase phase, std::vector<int> hosts, int round, const std::string& collective,
                                       int repeat, double busbw_gbps, int rail = -1, std::vector<int> group = {}) {
  MeasurementRecord m;
  m.collective = &ncclsweep::collective(collective);
  m.dtype = &data_type("float32");
  m.size_bytes = 1 << 20;
  m.repeat = repeat;
  m.busbw_gbps = busbw_gbps;
  m.time_us.max = busbw_gbps > 0 ? 1e3 / busbw_gbps : 0;
  m.locate = LocatePlace{phase, round, std::move(hosts), rail, std::move(group), 1};
  return m;
}

}  // namespace ncclsweep::testing
