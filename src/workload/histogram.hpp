#pragma once
// The size histogram of a profile, (collective, total bytes, dtype, op, group size) ->
// calls, with each row's share of the bytes sent; and the weighted time per iteration.
#include <string>
#include <vector>

#include "workload/comm_use.hpp"

namespace ncclsweep {

struct HistogramRow {
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;
  const DataType* dtype = nullptr;  // nullptr: not known
  std::optional<ReduceOp> op;
  int group_size = 0;
  std::string group;      // "dp-cp", "tp", ... or "" when mixed or unknown
  double calls = 0;
  double share_of_bytes = 0;  // calls*bytes over the sum for all NCCL rows; 0 for non-NCCL rows
  bool via_nccl = true;
  std::vector<std::string> origins;
};

// Merges uses with the same key (origins kept in order), largest share first.
std::vector<HistogramRow> histogram(const CommProfile& profile);

// The distinct byte sizes NCCL carries, ascending.
std::vector<Bytes> distinct_sizes(const std::vector<HistogramRow>& rows);

// A measured time: collective at a total size on a group of group_size ranks (0: any).
struct MeasuredTime {
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;
  int group_size = 0;
  double seconds = 0;
};

enum class TimeSource { measured, interpolated, missing };

struct WeightedRow {
  double seconds_per_call = 0;
  double seconds_per_iteration = 0;  // calls * seconds_per_call
  TimeSource source = TimeSource::missing;
};

struct IterationTime {
  double seconds = 0;          // sum over rows that have a time
  bool complete = true;        // false: some NCCL row had no measurement to use
  std::vector<WeightedRow> rows;  // parallel to the histogram; non-NCCL rows are missing
};

// Time per iteration = sum of calls x time at that size on that group. A size between
// two measured sizes of the same collective and group is interpolated log-linearly
// (log time linear in log size) and marked; no extrapolation outside the measured range.
IterationTime iteration_time(const std::vector<HistogramRow>& rows, const std::vector<MeasuredTime>& table);

}  // namespace ncclsweep
