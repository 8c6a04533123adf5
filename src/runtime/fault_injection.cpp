#include "runtime/fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/checked_number.hpp"
#include "core/errors.hpp"

namespace ncclsweep {
namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw UsageError("--inject-fault '" + text + "': " + why,
                   "write RANK:ACTION[@POINT] with ACTION sleep=SECONDS, exit, kill, skip or slow=FACTOR, e.g. "
                   "1:sleep=600@p2 or 3:slow=4");
}

}  // namespace

FaultInjection parse_fault_injection(const std::string& text) {
  FaultInjection fault;
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) refuse(text, "no RANK: before the action");
  const std::string rank = text.substr(0, colon);
  if (rank.find_first_not_of("0123456789") != std::string::npos || rank.size() > 7) {
    refuse(text, "the rank '" + rank + "' is not a rank number");
  }
  fault.rank = static_cast<int>(*parse_integer_text(rank));  // at most 7 digits, checked above
  std::string action = text.substr(colon + 1);
  if (action.rfind("slow=", 0) == 0) fault.point.clear();  // every point unless @POINT names one
  if (const auto at = action.find('@'); at != std::string::npos) {
    fault.point = action.substr(at + 1);
    action.resize(at);
    if (fault.point.empty()) refuse(text, "no point label after @");
  }
  if (action.rfind("sleep=", 0) == 0) {
    const std::string seconds = action.substr(6);
    char* end = nullptr;
    fault.seconds = std::strtod(seconds.c_str(), &end);
    if (seconds.empty() || *end != '\0' || !(fault.seconds >= 0) || fault.seconds > 86400) {
      refuse(text, "sleep needs a number of seconds from 0 to 86400");
    }
    fault.action = "sleep";
  } else if (action.rfind("slow=", 0) == 0) {
    const std::string factor = action.substr(5);
    char* end = nullptr;
    fault.factor = std::strtod(factor.c_str(), &end);
    if (factor.empty() || *end != '\0' || !(fault.factor >= 2) || fault.factor > 100 ||
        fault.factor != std::floor(fault.factor)) {
      refuse(text, "slow needs a whole factor from 2 to 100 (each call runs that many times)");
    }
    fault.action = "slow";
  } else if (action == "exit" || action == "kill" || action == "skip") {
    fault.action = action;
  } else {
    refuse(text, "unknown action '" + action + "'");
  }
  return fault;
}

std::string to_text(const FaultInjection& fault) {
  if (fault.rank < 0) return "";
  const std::string action = fault.action == "sleep"  ? "sleep=" + std::to_string(fault.seconds)
                             : fault.action == "slow" ? "slow=" + std::to_string(static_cast<int>(fault.factor))
                                                      : fault.action;
  return std::to_string(fault.rank) + ":" + action + (fault.point.empty() ? "" : "@" + fault.point);
}

bool inject_fault(const FaultInjection& fault) {
  std::fprintf(stderr, "ncclsweep: injecting fault %s\n", to_text(fault).c_str());
  std::fflush(stderr);
  if (fault.action == "sleep") {
    std::this_thread::sleep_for(std::chrono::duration<double>(fault.seconds));
    return false;
  }
  if (fault.action == "exit") std::_Exit(kExitRuntime);
  if (fault.action == "kill") {
    raise(SIGKILL);
    std::_Exit(kExitRuntime);  // not reached
  }
  return true;  // skip
}

}  // namespace ncclsweep
