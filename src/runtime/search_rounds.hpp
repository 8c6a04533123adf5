#pragma once
// A search run (docs/search.md): rank 0 holds the search (src/search/search.hpp) and hands
// every rank each round it decides; every rank measures the round's candidates, grouped by
// isolation group, at their bands' sizes, where their settings need them: in the ranks
// themselves (the mpi engine with no env axis) or in the group's workers, kept warm
// between rounds (processes/worker_pool.hpp). Rank 0 gives the records back to the search.
// The outcome goes to search.json beside run.json.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "results/result_sink.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {

struct LaunchState;

enum class SearchMeasureStatus { measured, failed, stopped, refused };

// Where a search's candidates are measured. Each call is collective.
class SearchMeasurer {
 public:
  virtual ~SearchMeasurer() = default;
  // `point` of `group` at the plan's calls `calls`, as occasion `repeat`, each timed call
  // run `slow_factor` times; rank 0's rows to `rows`. `why` says what failed.
  virtual SearchMeasureStatus measure(const WorkerGroup& group, const PointSpec& point,
                                      const std::vector<std::size_t>& calls, int repeat, int slow_factor,
                                      ResultSink* rows, std::string& why) = 0;
  // Worker starts so far (0 in the ranks).
  virtual int worker_starts() const { return 0; }
  // The exit status its failures ask for: kExitUsage after refused (the run may not
  // start), kExitRuntime when a worker failed or never came up; kExitOk otherwise.
  virtual int exit_status() const { return 0; }
};

// In the ranks: `engine` connected already.
std::unique_ptr<SearchMeasurer> in_process_measurer(LaunchState& state, Engine& engine);
// In workers, one pool for the whole search. `begun` turns true once the run began.
std::unique_ptr<SearchMeasurer> worker_measurer(LaunchState& state, bool& begun);

// A search whose points need workers: one pool for its rounds. Returns the exit status.
int run_search_in_workers(LaunchState& state);

// Every rank calls it; returns the exit status (kExitUsage when the run may not start,
// kExitRuntime when a candidate failed). state.stopped says whether the ranks agreed to stop.
int run_search_rounds(LaunchState& state, SearchMeasurer& measurer);

}  // namespace ncclsweep
