#pragma once
// A sweep as a search space (docs/search.md): each candidate is one sweep point with one
// value of each call mode that the run varies (buffers, launch, footprint, cache), and
// each axis is a swept setting or one of those modes. What the runtime measures for a
// candidate is the point's calls in those modes.
#include <string>
#include <vector>

#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "plan/measurement_plan.hpp"
#include "plan/sweep_plan.hpp"
#include "search/search.hpp"

namespace ncclsweep {

struct CandidateCalls {
  std::string point;  // the sweep point's label
  BufferMode buffers = BufferMode::cuda_malloc;
  LaunchMode launch = LaunchMode::stream;
  BufferFootprint footprint;
  CacheState cache = CacheState::warm;
  bool measures(const PlannedCall& planned) const;
};

struct SearchGrid {
  SearchSpace space;
  std::vector<CandidateCalls> calls;  // per candidate
};

// Points x the modes `spec` lists more than one value of; the baseline is the baseline
// point in each mode's first value.
SearchGrid make_search_grid(const std::vector<SweepPoint>& points, int baseline, const RunSpec& spec);

// The plan's sizes per collective, cut at the search's band edges (none: auto).
std::vector<SizeBand> search_bands(const MeasurementPlan& plan, const std::vector<Bytes>& edges);

// The band of one measured size; -1 when none holds it.
int band_of(const std::vector<SizeBand>& bands, const CollectiveKind& collective, Bytes size);

// Size measurements a search makes: at most (its budget, or every candidate in every
// round) and as expected when a quarter of the candidates survive the first round and
// half of those each later round (racing), or when each axis step takes three rounds and
// two cycles run (coordinate). The full grid's: candidates x sizes x repeats.
struct SearchCost {
  long grid = 0, worst = 0, expected = 0;
};
SearchCost estimate_search_cost(const SearchSpace& space, const std::vector<SizeBand>& bands, const SearchOptions& options);

}  // namespace ncclsweep
