#pragma once
// The proof that no point inherits another's setting: every NCCL_ variable present at a
// point's communicator init is either one the point names, or one the whole run had
// (the worker's environment as it started, NCCL's own config file included). Anything
// else would change what the point measures while its label says nothing about it.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "verify/nccl_log.hpp"

namespace ncclsweep {

// "NAME=VALUE" for each NCCL_ variable that `seen_at_init` holds, or that NCCL logged as
// "set by environment" for this point (`point_log`: an environment plugin can supply a
// value the process environment lacks), that is not in `named` and that `run_environment`
// does not hold with the same value. In name order.
std::vector<std::string> unexpected_nccl_variables(const std::map<std::string, std::string>& seen_at_init,
                                                   const NcclLogFacts& point_log, const std::set<std::string>& named,
                                                   const std::map<std::string, std::string>& run_environment);

}  // namespace ncclsweep
