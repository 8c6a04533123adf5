#pragma once
// NCCL's tuner plugins name a collective by its NCCL name in lower case ("allgather" for
// AllGather) and choose only for broadcast, reduce, all_gather, reduce_scatter and
// all_reduce: the one mapping between those names and this tool's collectives.
#include <optional>

#include "core/collective.hpp"

namespace ncclsweep {

// The tuner file's collective index; nullopt for a collective tuners do not choose for.
std::optional<int> tuner_collective(const CollectiveKind& kind);

// This tool's collective for a tuner index; nullptr when none has its name.
const CollectiveKind* collective_of_tuner(int tuner_collective);

}  // namespace ncclsweep
