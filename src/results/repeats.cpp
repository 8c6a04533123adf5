#include "results/repeats.hpp"

#include <algorithm>
#include <map>

#include "core/iteration_stats.hpp"

namespace ncclsweep {

RepeatStats repeat_stats(std::span<const double> values) {
  RepeatStats s;
  s.count = static_cast<int>(values.size());
  s.median = median_of({values.begin(), values.end()});
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  s.min = *low;
  s.max = *high;
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  return s;
}

std::vector<RepeatedMeasurement> aggregate_repeats(std::span<const MeasurementRecord> records) {
  std::map<MeasurementKey, std::vector<const MeasurementRecord*>> repeats;
  for (const MeasurementRecord& r : records) repeats[without_repeat(key_of(r))].push_back(&r);
  std::vector<RepeatedMeasurement> out;
  out.reserve(repeats.size());
  for (auto& [key, group] : repeats) {
    std::stable_sort(group.begin(), group.end(), [](const auto* a, const auto* b) { return a->repeat < b->repeat; });
    RepeatedMeasurement m{key, *group.front(), {}, {}, {}, std::nullopt, std::nullopt};
    std::vector<double> busbw, algbw, time, comm_slowdown, compute_slowdown, exposed, comm_under, compute_under;
    for (const MeasurementRecord* r : group) {
      busbw.push_back(r->busbw_gbps);
      algbw.push_back(r->algbw_gbps);
      time.push_back(r->time_us.max);
      if (r->wrong) m.wrong = m.wrong.value_or(0) + *r->wrong;
      if (const auto& u = r->under_compute) {  // every repeat of a key has it: the key holds the load
        comm_slowdown.push_back(u->comm_slowdown());
        compute_slowdown.push_back(u->compute_slowdown());
        exposed.push_back(u->exposed_us());
        comm_under.push_back(u->comm_under_us);
        compute_under.push_back(u->compute_under_us);
      }
    }
    m.busbw_gbps = repeat_stats(busbw);
    m.algbw_gbps = repeat_stats(algbw);
    m.time_us = repeat_stats(time);
    if (!exposed.empty()) {
      m.under_compute = RepeatedMeasurement::UnderComputeStats{repeat_stats(comm_slowdown), repeat_stats(compute_slowdown),
                                                              repeat_stats(exposed), repeat_stats(comm_under),
                                                              repeat_stats(compute_under)};
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::map<MeasurementKey, BusbwBySize> busbw_by_series(std::span<const RepeatedMeasurement> measurements,
                                                      Placement placement) {
  std::map<MeasurementKey, BusbwBySize> series;
  for (const RepeatedMeasurement& m : measurements) {
    if (m.key.placement != placement) continue;
    series[series_of(m.key)][{m.key.size_bytes, m.key.requested_bytes}][m.key.point] = m.busbw_gbps;
  }
  return series;
}

}  // namespace ncclsweep
