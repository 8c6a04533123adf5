#pragma once
// The ranks of one launch as the runtime sees them: the engines' control plane
// (Coordinator) plus what the runtime itself exchanges between ranks (agreement on a
// status, host names, strings, the relay of worker steps). MpiSession implements it over
// MPI; the unit tests implement it with threads, so a whole launch runs without mpirun.
#include <string>
#include <vector>

#include "engine/coordinator.hpp"
#include "transport/relay_step.hpp"

namespace ncclsweep {

class RankGroup : public Coordinator {
 public:
  virtual const std::string& host() const = 0;
  virtual int max_across_ranks(int value) = 0;
  virtual void barrier() = 0;
  // `value` of `root`, on every rank.
  virtual std::string broadcast_string(std::string value, int root) = 0;
  std::string broadcast_string(std::string value) { return broadcast_string(std::move(value), 0); }
  // Every rank's string, in rank order, on `root`; empty elsewhere.
  virtual std::vector<std::string> gather(const std::string& value, int root) = 0;
  std::vector<std::string> gather(const std::string& value) { return gather(value, 0); }
  // Every rank's step combined (relay_step.hpp), on every rank: one call per step; when
  // the combination asks for a gather, every rank's gather_value too, on rank 0.
  virtual CombinedStep combine_relay_steps(const RelayStep& mine) = 0;
  // What carries the ranks' messages, for run.json ("Open MPI v4.1.4").
  virtual std::string library_version() const = 0;
  // Ends every rank of the launch with `status`: for a failure one rank cannot recover
  // from while the others may wait for it in a collective.
  [[noreturn]] virtual void abort(int status) = 0;
};

}  // namespace ncclsweep
