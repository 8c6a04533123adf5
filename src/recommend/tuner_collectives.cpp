#include "recommend/tuner_collectives.hpp"

#include "tuner/tuner_rules.hpp"

namespace ncclsweep {

// The tuner's parse ignores case, so NCCL's own name ("AllGather") reads as "allgather".
std::optional<int> tuner_collective(const CollectiveKind& kind) { return tuner::parse_collective(kind.nccl_name); }

const CollectiveKind* collective_of_tuner(int tuner_collective) {
  for (const CollectiveKind& kind : all_collectives()) {
    if (tuner::parse_collective(kind.nccl_name) == tuner_collective) return &kind;
  }
  return nullptr;
}

}  // namespace ncclsweep
