#pragma once
// A validated description of what to measure, before any rank or GPU is involved.
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/units.hpp"

namespace ncclsweep {

struct RunSpec {
  std::string name = "run";
  std::vector<const CollectiveKind*> collectives;
  std::vector<Bytes> sizes;  // requested totals, nccl-tests convention
  std::vector<const DataType*> dtypes;
  std::vector<ReduceOp> ops;
  int root = 0;
  int warmup = 5;
  int iters = 20;
  bool check = true;
  std::string engine;
  // Deadline in seconds for each communicator init and each measured size; 0: the
  // default, which scales with the largest size (runtime/deadline.hpp).
  int timeout_s = 0;
};

// Comma-separated lists from the command line; each throws UsageError naming the bad entry.
std::vector<const CollectiveKind*> parse_collective_list(const std::string& text);
std::vector<const DataType*> parse_dtype_list(const std::string& text);
std::vector<ReduceOp> parse_op_list(const std::string& text);

}  // namespace ncclsweep
