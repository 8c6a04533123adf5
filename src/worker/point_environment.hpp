#pragma once
// The environment each point's communicator init sees: the worker's environment as it
// started (captured once) plus the point's own variables, and never a variable an
// earlier point set. NCCL re-reads some variables (NCCL_ALGO, NCCL_PROTO, ...) at every
// init, so a variable left behind by one point would change every later point of the
// same worker while their labels said nothing about it.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ncclsweep {

using EnvironmentMap = std::map<std::string, std::string>;

// Changes to a process environment, applied in this order: set, then unset.
struct EnvironmentEdit {
  std::vector<std::pair<std::string, std::string>> set;  // name, value
  std::vector<std::string> unset;
  bool operator==(const EnvironmentEdit&) const = default;
};

// What turns an environment holding `base` into base + `point` (the point's value wins
// for a name both have). Names already at the wanted value are left alone.
EnvironmentEdit edit_to_enter(const EnvironmentMap& base, const EnvironmentMap& point);

// What turns base + `point` back into `base`: each of the point's names gets its base
// value again, or is removed when the base did not have it.
EnvironmentEdit edit_to_leave(const EnvironmentMap& base, const EnvironmentMap& point);

// `edit` applied to a map, as setenv and unsetenv apply it to the process environment.
void apply_edit(const EnvironmentEdit& edit, EnvironmentMap& environment);

// Holds base + `point` in this process's environment for its lifetime and gives the
// base back when it ends, also when the point throws. `base` is the worker's environment
// as it started.
class ScopedPointEnvironment {
 public:
  ScopedPointEnvironment(const EnvironmentMap& base, const EnvironmentMap& point);
  ~ScopedPointEnvironment();
  ScopedPointEnvironment(const ScopedPointEnvironment&) = delete;
  ScopedPointEnvironment& operator=(const ScopedPointEnvironment&) = delete;

 private:
  EnvironmentEdit leave_;
};

// What a point records of the environment its init saw: every NCCL_ variable and the
// launcher variables that pick the GPU and the rank (CUDA_VISIBLE_DEVICES, Open MPI's and
// Slurm's rank and local rank); nothing else, so no credentials. Names and values that are
// not UTF-8 are escaped (\xNN), as JSON takes nothing else.
EnvironmentMap recorded_environment(char** envp);
EnvironmentMap recorded_environment(const EnvironmentMap& environment);

}  // namespace ncclsweep
