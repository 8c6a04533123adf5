#include "importers/import_counter.hpp"

#include <tuple>

namespace ncclsweep {

bool ImportCounter::ByNames::operator()(const Call& a, const Call& b) const {
  const auto names = [](const Call& c) {
    return std::tuple{c.collective->name, c.bytes, c.dtype != nullptr ? c.dtype->name : "", c.op ? name_of(*c.op) : "",
                      c.group_size};
  };
  return names(a) < names(b);
}

void ImportCounter::add(const CollectiveKind& collective, Bytes bytes, const DataType* dtype, std::optional<ReduceOp> op,
                        int group_size, const std::string& rank) {
  auto& seen = calls_[{&collective, bytes, dtype, op, group_size}];
  ++seen.calls;
  seen.ranks.insert(rank);
  all_ranks_.insert(rank);
}

void ImportCounter::merge(const ImportCounter& other) {
  for (const auto& [key, seen] : other.calls_) {
    auto& mine = calls_[key];
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
  for (const auto& [call, seen] : calls_) {
    double calls = static_cast<double>(seen.calls) / static_cast<double>(seen.ranks.size());
    if (iterations > 0) calls /= iterations;
    out.uses.push_back({call.collective, call.bytes, call.dtype, call.op, ParallelGroup{ParallelKind::unknown, call.group_size, 0},
                        calls,
                        what + ": " + std::to_string(seen.calls) + " calls by " + std::to_string(seen.ranks.size()) +
                            " ranks",
                        true});
  }
  out.notes.push_back(std::to_string(all_ranks_.size()) + " ranks seen in " + source);
  return out;
}

}  // namespace ncclsweep
