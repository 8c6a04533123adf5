#pragma once
// Counting collective calls seen in imported files, per rank, into a CommProfile.
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "workload/comm_use.hpp"

namespace ncclsweep {

class ImportCounter {
 public:
  // One call by `rank` (any string naming one process/GPU); `dtype` nullptr when the
  // file does not say.
  void add(const CollectiveKind& collective, Bytes bytes, const DataType* dtype, std::optional<ReduceOp> op,
           int group_size, const std::string& rank);
  void merge(const ImportCounter& other);  // `other`'s calls added to these
  bool empty() const { return calls_.empty(); }

  // Calls per rank = calls of a key / ranks that made it, divided by `iterations` when
  // it is > 0 (then per iteration); otherwise over the whole input, and `basis` says so.
  CommProfile profile(const std::string& source, const std::string& what, int iterations) const;

 private:
  struct Call {
    const CollectiveKind* collective = nullptr;
    Bytes bytes = 0;
    const DataType* dtype = nullptr;
    std::optional<ReduceOp> op;
    int group_size = 0;
  };
  // By names, so the profile lists its uses in the same order on every machine.
  struct ByNames {
    bool operator()(const Call& a, const Call& b) const;
  };
  struct Seen {
    long long calls = 0;
    std::set<std::string> ranks;
  };
  std::map<Call, Seen, ByNames> calls_;
  std::set<std::string> all_ranks_;
};

}  // namespace ncclsweep
