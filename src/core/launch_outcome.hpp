#pragma once
// What a launch leaves its command: the exit status every rank agreed on and, on rank 0,
// the typed result the command hands to its printer (none on the other ranks, and none
// where the launch stopped before it had one).
#include <optional>

namespace ncclsweep {

template <typename Result>
struct LaunchOutcome {
  int status = 0;
  std::optional<Result> result;

  static LaunchOutcome with_status(int status) {
    LaunchOutcome outcome;
    outcome.status = status;
    return outcome;
  }
};

}  // namespace ncclsweep
