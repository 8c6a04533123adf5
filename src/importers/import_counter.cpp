#include "importers/import_counter.hpp"

namespace ncclsweep {

void ImportCounter::add(const CollectiveKind& collective, Bytes bytes, const DataType* dtype, std::optional<ReduceOp> op,
                        int group_size, const std::string& rank) {
  auto& seen = calls_[{collective.name, bytes, dtype != nullptr ? dtype->name : "", op ? name_of(*op) : "", group_size}];
  seen.collective = &collective;
  seen.dtype = dtype;
  seen.op = op;
  ++seen.calls;
  seen.ranks.insert(rank);
  all_ranks_.insert(rank);
}

void ImportCounter::merge(const ImportCounter& other) {
  for (const auto& [key, seen] : other.calls_) {
    auto& mine = calls_[key];
    mine.collective = seen.collective;
    mine.dtype = seen.dtype;
    mine.op = seen.op;
    mine.calls += seen.calls;
    mine.ranks.insert(seen.ranks.begin(), seen.ranks.end());
  }
  all_ranks_.insert(other.all_ranks_.begin(), other.all_ranks_.end());
}

CommProfile ImportCounter::profile(const std::string& source, const std::string& what, int iterations) const {
  CommProfile out;
  out.source = source;
  out.per_iteration = iterations > 0;
  out.basis = iterations > 0 ? "per rank per iteration (" + std::to_string(iterations) + " iterations)"
                             : "per rank over the whole input (iterations cannot be told apart; pass --iterations N "
                               "to divide)";
  for (const auto& [key, seen] : calls_) {
    const auto& [name, bytes, dtype_name, op_name, group_size] = key;
    double calls = static_cast<double>(seen.calls) / static_cast<double>(seen.ranks.size());
    if (iterations > 0) calls /= iterations;
    out.uses.push_back({seen.collective, bytes, seen.dtype, seen.op, ParallelGroup{ParallelKind::unknown, group_size, 0}, calls,
                        what + ": " + std::to_string(seen.calls) + " calls by " + std::to_string(seen.ranks.size()) +
                            " ranks",
                        true});
  }
  out.notes.push_back(std::to_string(all_ranks_.size()) + " ranks seen in " + source);
  return out;
}

}  // namespace ncclsweep
