#pragma once
// What a launch leaves its command: the exit status every rank agreed on and, on rank 0,
// the typed result the command hands to its printer (none on the other ranks, and none
// where the launch stopped before it had one), and the error that stopped it, which the
// command prints: a refusal every rank agreed on, or rank 0's failure while finishing.
// (A run's own errors go to its log as they happen; a failure inside a collective is
// printed by the failing rank before it ends every rank: runtime/in_process_engine.hpp.)
#include <optional>
#include <string>
#include <utility>

#include "core/errors.hpp"

namespace ncclsweep {

template <typename Result>
struct LaunchOutcome {
  int status = 0;
  std::optional<Result> result;
  std::string error;  // rank 0's words for what stopped the launch; empty elsewhere and when nothing did

  static LaunchOutcome with_status(int status) {
    LaunchOutcome outcome;
    outcome.status = status;
    return outcome;
  }
  // Bad input every rank stopped on together (exit 2); `error` as rank 0 has it.
  static LaunchOutcome refused(std::string error) {
    LaunchOutcome outcome;
    outcome.status = kExitUsage;
    outcome.error = std::move(error);
    return outcome;
  }
};

}  // namespace ncclsweep
