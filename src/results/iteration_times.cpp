#include "results/iteration_times.hpp"

#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "results/repeats.hpp"
#include "workload/histogram.hpp"

namespace ncclsweep {

std::vector<PointIterationTime> weigh_points(const RunDocument& run) {
  std::vector<PointIterationTime> out;
  if (!run.workload) return out;
  std::vector<HistogramRow> rows;
  for (const WorkloadCall& c : run.workload->calls) {
    rows.push_back({c.collective, c.bytes, c.dtype, std::nullopt, c.communicator_ranks, std::string(name_of(c.communicator)), c.calls, 0, true, {c.origin}});
  }
  std::vector<std::string> points;
  for (const auto& p : run.points) points.push_back(p.label);
  if (points.empty()) points.push_back("default");
  // One time per measurement: the median over its repeats, under one set of modes and
  // conditions (the defaults, or the first measured), so neither repeats nor modes count twice.
  const std::vector<RepeatedMeasurement> measurements = aggregate_repeats(run.records);
  const auto conditions_of = [](const MeasurementKey& k) { return std::tuple{k.buffers, k.launch, k.footprint, k.cache}; };
  for (const std::string& point : points) {
    std::optional<decltype(conditions_of(MeasurementKey{}))> chosen;
    std::vector<MeasuredTime> table, exposed;
    for (const RepeatedMeasurement& m : measurements) {
      if (m.key.point != point || m.key.placement != Placement::out_of_place) continue;
      if (!chosen || conditions_of(m.key) < *chosen) chosen = conditions_of(m.key);
    }
    for (const RepeatedMeasurement& m : measurements) {
      const MeasurementKey& k = m.key;
      if (k.point != point || k.placement != Placement::out_of_place || conditions_of(k) != chosen) continue;
      // The requested size: the measured one differs by less than an element per rank.
      table.push_back({k.collective, k.requested_bytes ? k.requested_bytes : k.size_bytes,
                       k.communicator.ranks, m.time_us.median * 1e-6});
      if (m.under_compute) {
        exposed.push_back({table.back().collective, table.back().bytes, table.back().group_size,
                           m.under_compute->exposed_us.median * 1e-6});
      }
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
    // The overlapped form (docs/overlap.md): each call costs what it exposes under compute.
    if (!exposed.empty()) p.under_compute_ms = iteration_time(rows, exposed).seconds * 1e3;
    out.push_back(p);
  }
  return out;
}

}  // namespace ncclsweep
