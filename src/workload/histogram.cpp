#include "workload/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ncclsweep {

std::vector<HistogramRow> histogram(const CommProfile& profile) {
  std::vector<HistogramRow> rows;
  for (const auto& use : profile.uses) {
    auto same = [&](const HistogramRow& r) {
      return std::tie(r.collective, r.bytes, r.dtype, r.op, r.group_size, r.via_nccl) ==
             std::tie(use.collective, use.bytes, use.dtype, use.op, use.group.size, use.via_nccl);
    };
    auto it = std::find_if(rows.begin(), rows.end(), same);
    const std::string group = use.group.kind == ParallelKind::unknown ? "" : name_of(use.group.kind);
    if (it == rows.end()) {
      rows.push_back({use.collective, use.bytes, use.dtype, use.op, use.group.size, group, 0, 0, use.via_nccl, {}});
      it = rows.end() - 1;
    } else if (it->group != group) {
      it->group.clear();  // same size on groups of different kinds
    }
    it->calls += use.calls;
    it->origins.push_back(use.origin);
  }
  double total = 0;
  for (const auto& r : rows) if (r.via_nccl) total += r.calls * static_cast<double>(r.bytes);
  for (auto& r : rows) {
    if (r.via_nccl && total > 0) r.share_of_bytes = r.calls * static_cast<double>(r.bytes) / total;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const HistogramRow& a, const HistogramRow& b) {
    return a.share_of_bytes > b.share_of_bytes;
  });
  return rows;
}

std::vector<Bytes> distinct_sizes(const std::vector<HistogramRow>& rows) {
  std::vector<Bytes> sizes;
  for (const auto& r : rows) if (r.via_nccl) sizes.push_back(r.bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

namespace {

WeightedRow time_of(const HistogramRow& row, const std::vector<MeasuredTime>& table) {
  std::vector<const MeasuredTime*> points;
  for (const auto& t : table) {
    if (t.collective == row.collective && (t.group_size == 0 || t.group_size == row.group_size) && t.seconds > 0 &&
        t.bytes > 0) {
      points.push_back(&t);
    }
  }
  std::sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->bytes < b->bytes; });
  WeightedRow out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i]->bytes == row.bytes) {
      out.seconds_per_call = points[i]->seconds;
      out.source = TimeSource::measured;
      break;
    }
    if (i + 1 < points.size() && points[i]->bytes < row.bytes && row.bytes < points[i + 1]->bytes) {
      const double x0 = std::log(static_cast<double>(points[i]->bytes));
      const double x1 = std::log(static_cast<double>(points[i + 1]->bytes));
      const double f = (std::log(static_cast<double>(row.bytes)) - x0) / (x1 - x0);
      out.seconds_per_call = std::exp(std::log(points[i]->seconds) * (1 - f) + std::log(points[i + 1]->seconds) * f);
      out.source = TimeSource::interpolated;
      break;
    }
  }
  out.seconds_per_iteration = out.seconds_per_call * row.calls;
  return out;
}

}  // namespace

IterationTime iteration_time(const std::vector<HistogramRow>& rows, const std::vector<MeasuredTime>& table) {
  IterationTime result;
  for (const auto& row : rows) {
    WeightedRow w = row.via_nccl ? time_of(row, table) : WeightedRow{};
    if (row.via_nccl && w.source == TimeSource::missing) result.complete = false;
    result.seconds += w.seconds_per_iteration;
    result.rows.push_back(w);
  }
  return result;
}

}  // namespace ncclsweep
