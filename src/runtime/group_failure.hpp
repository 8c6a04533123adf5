#pragma once
// Why a worker run failed, in one line for the terminal and run.json, from every rank's
// error as its MPI rank gathered it ("host: text"; empty where that rank's worker was fine).
#include <string>
#include <vector>

#include "processes/worker_pool.hpp"

namespace ncclsweep {

struct GroupFailure {
  std::string reason;      // empty when no rank said anything and the group did not fail
  bool timed_out = false;  // some rank made no progress within the deadline
};

// The first rank's error, or, when ranks timed out, the timeout and every rank that did
// not finish ("...; did not finish: rank 1 (node1), rank 3 (node2)").
GroupFailure describe_group_failure(const WorkerFailure& result, const std::vector<std::string>& errors);

}  // namespace ncclsweep
