#pragma once
// Workload -> the collectives one rank calls per training iteration, each with its
// group, total size, dtype, calls and origin (formulas: docs/workloads.md).
#include "workload/comm_use.hpp"
#include "workload/workload.hpp"

namespace ncclsweep {

CommProfile derive_collectives(const Workload& workload);

// Layers [first, first + count) of global pipeline chunk `chunk` of `chunks`: an even
// split, the first layers % chunks chunks taking one layer more.
struct LayerRange {
  int first = 0;
  int count = 0;
};
LayerRange layers_of_chunk(int layers, int chunk, int chunks);

}  // namespace ncclsweep
