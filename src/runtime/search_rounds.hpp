#pragma once
// A search run with the mpi engine (docs/search.md): rank 0 holds the search
// (src/search/search.hpp) and hands every rank each round it decides; every rank
// measures the round's candidates, in its order, at their bands' sizes; rank 0 gives the
// records back to the search. The outcome goes to search.json beside run.json.
#include "engine/engine.hpp"

namespace ncclsweep {

struct LaunchState;

// Every rank calls it after connect; false when the ranks agreed to stop early.
bool run_search_rounds(LaunchState& state, Engine& engine);

}  // namespace ncclsweep
