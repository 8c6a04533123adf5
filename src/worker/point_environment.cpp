#include "worker/point_environment.hpp"

#include <cstdlib>
#include <vector>

#include "core/environment.hpp"
#include "core/errors.hpp"

namespace ncclsweep {

EnvironmentEdit edit_to_enter(const EnvironmentMap& base, const EnvironmentMap& point) {
  EnvironmentEdit edit;
  for (const auto& [name, value] : point) {
    const auto had = base.find(name);
    if (had == base.end() || had->second != value) edit.set.emplace_back(name, value);
  }
  return edit;
}

EnvironmentEdit edit_to_leave(const EnvironmentMap& base, const EnvironmentMap& point) {
  EnvironmentEdit edit;
  for (const auto& [name, value] : point) {
    const auto had = base.find(name);
    if (had == base.end()) {
      edit.unset.push_back(name);
    } else if (had->second != value) {
      edit.set.emplace_back(name, had->second);
    }
  }
  return edit;
}

void apply_edit(const EnvironmentEdit& edit, EnvironmentMap& environment) {
  for (const auto& [name, value] : edit.set) environment[name] = value;
  for (const auto& name : edit.unset) environment.erase(name);
}

namespace {

void apply_to_process(const EnvironmentEdit& edit) {
  for (const auto& [name, value] : edit.set) {
    if (setenv(name.c_str(), value.c_str(), 1) != 0) {
      throw RuntimeFailure("setenv", "cannot set " + name + " for the point's communicator init");
    }
  }
  for (const auto& name : edit.unset) unsetenv(name.c_str());
}

// Giving the base back removes a variable or sets a value the process had at start:
// setenv can only fail for want of memory then, and a destructor cannot report it.
void restore(const EnvironmentEdit& leave) noexcept {
  for (const auto& [name, value] : leave.set) setenv(name.c_str(), value.c_str(), 1);
  for (const auto& name : leave.unset) unsetenv(name.c_str());
}

}  // namespace

ScopedPointEnvironment::ScopedPointEnvironment(const EnvironmentMap& base, const EnvironmentMap& point)
    : leave_(edit_to_leave(base, point)) {
  try {
    apply_to_process(edit_to_enter(base, point));
  } catch (...) {
    restore(leave_);  // what was set already goes back
    throw;
  }
}

ScopedPointEnvironment::~ScopedPointEnvironment() { restore(leave_); }

EnvironmentMap recorded_environment(const EnvironmentMap& environment) {
  std::vector<std::string> entries;
  for (const auto& [name, value] : environment) entries.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  return recorded_environment(envp.data());
}

EnvironmentMap recorded_environment(char** envp) {
  // environment_with_prefixes escapes what is not UTF-8.
  return environment_with_prefixes(envp, {"NCCL_", "CUDA_VISIBLE_DEVICES", "OMPI_COMM_WORLD_RANK",
                                          "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_PROCID", "SLURM_LOCALID"});
}

}  // namespace ncclsweep
