#pragma once
#include <map>
#include <string>

namespace ncclsweep {

// The whole environment of a worker: the MPI rank's own, the isolation group's
// process-level variables, and NCCL's log switched on into a file of its own (INFO
// with INIT and ENV at least, so "set by environment" lines can be checked), keeping
// a user's higher log level and extra subsystems.
std::map<std::string, std::string> worker_environment(std::map<std::string, std::string> base,
                                                      const std::map<std::string, std::string>& group_env,
                                                      const std::string& nccl_log_path, bool log_tuning = false);

}  // namespace ncclsweep
