#include "results/iteration_times.hpp"

#include <optional>
#include <string>
#include <utility>

#include "results/repeats.hpp"
#include "workload/histogram.hpp"

namespace ncclsweep {

std::vector<PointIterationTime> weigh_points(const RunDocument& run) {
  std::vector<PointIterationTime> out;
  if (!run.workload) return out;
  std::vector<HistogramRow> rows;
  for (const WorkloadCall& c : run.workload->calls) {
    rows.push_back({c.collective, c.bytes, c.dtype, "", c.group_size, c.group, c.calls, 0, true, {c.origin}});
  }
  std::vector<std::string> points;
  for (const auto& p : run.points) points.push_back(p.label);
  if (points.empty()) points.push_back("default");
  // One time per measurement: the median over its repeats, in one buffer and launch mode
  // (the default, or the first measured), so neither repeats nor modes count twice.
  const std::vector<RepeatedMeasurement> measurements = aggregate_repeats(run.records);
  for (const std::string& point : points) {
    std::optional<std::pair<BufferMode, LaunchMode>> mode;
    std::vector<MeasuredTime> table;
    for (const RepeatedMeasurement& m : measurements) {
      if (m.key.point != point || m.key.placement != Placement::out_of_place) continue;
      const std::pair modes{m.key.buffers, m.key.launch};
      if (!mode || modes < *mode) mode = modes;
    }
    for (const RepeatedMeasurement& m : measurements) {
      const MeasurementKey& k = m.key;
      if (k.point != point || k.placement != Placement::out_of_place || std::pair{k.buffers, k.launch} != mode) continue;
      // The requested size: the measured one differs by less than an element per rank.
      table.push_back({std::string(k.collective->name), k.requested_bytes ? k.requested_bytes : k.size_bytes,
                       k.communicator.ranks, m.time_us.median * 1e-6});
    }
    const IterationTime t = iteration_time(rows, table);
    PointIterationTime p;
    p.point = point;
    p.ms = t.seconds * 1e3;
    for (const WeightedRow& w : t.rows) {
      if (w.source == TimeSource::measured) ++p.measured;
      if (w.source == TimeSource::interpolated) ++p.interpolated;
      if (w.source == TimeSource::missing) ++p.missing;
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace ncclsweep
