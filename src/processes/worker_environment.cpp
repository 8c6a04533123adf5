#include "processes/worker_environment.hpp"

namespace ncclsweep {

std::map<std::string, std::string> worker_environment(std::map<std::string, std::string> env,
                                                      const std::map<std::string, std::string>& group_env,
                                                      const std::string& nccl_log_path, bool log_tuning) {
  for (const auto& [name, value] : group_env) env[name] = value;
  if (env["NCCL_DEBUG"] != "TRACE") env["NCCL_DEBUG"] = "INFO";
  // NCCL_DEBUG_SUBSYS replaces NCCL's default mask, so INIT and ENV are named
  // explicitly; a "^..." exclusion list cannot be merged and is replaced.
  std::string subsystems = env["NCCL_DEBUG_SUBSYS"];
  if (subsystems.empty() || subsystems.front() == '^') {
    subsystems = "INIT,ENV";
  } else if (subsystems.find("ALL") == std::string::npos) {
    for (const char* needed : {"INIT", "ENV"}) {
      if (subsystems.find(needed) == std::string::npos) subsystems += std::string(",") + needed;
    }
  }
  // TUNING logs a line per call: one rank's view of the algorithm NCCL chose is enough.
  if (log_tuning && subsystems.find("ALL") == std::string::npos && subsystems.find("TUNING") == std::string::npos) {
    subsystems += ",TUNING";
  }
  env["NCCL_DEBUG_SUBSYS"] = subsystems;
  env["NCCL_DEBUG_FILE"] = nccl_log_path;
  return env;
}

}  // namespace ncclsweep
