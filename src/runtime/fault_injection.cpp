#include "runtime/fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw UsageError("--inject-fault '" + text + "': " + why,
                   "write RANK:ACTION[@POINT] with ACTION sleep=SECONDS, exit, kill or skip, e.g. 1:sleep=600@p2, "
                   "or RANK:slow=FACTOR[@t=SECONDS|@flap=SECONDS]");
}

// A number from `low` to `high` or a refusal naming `what`.
double number_in(const std::string& text, const std::string& value, double low, double high, const std::string& what) {
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(number >= low) || number > high) refuse(text, what);
  return number;
}

// slow=FACTOR and its schedule: the point label is "t=SECONDS" or "flap=SECONDS".
void parse_slow(const std::string& text, const std::string& factor, FaultInjection& fault) {
  fault.action = "slow";
  fault.factor = number_in(text, factor, 1, 100, "slow needs a whole number of calls per call from 1 to 100");
  if (fault.factor != std::floor(fault.factor)) refuse(text, "slow needs a whole number of calls per call from 1 to 100");
  const std::string schedule = fault.point == "default" ? "" : fault.point;
  fault.point = "default";
  if (schedule.rfind("t=", 0) == 0) {
    fault.from_s = number_in(text, schedule.substr(2), 0, 1e7, "@t= needs the seconds into the timeline, e.g. @t=60");
  } else if (schedule.rfind("flap=", 0) == 0) {
    fault.flap_s = number_in(text, schedule.substr(5), 0.001, 1e7, "@flap= needs the seconds each level lasts, e.g. @flap=10");
  } else if (!schedule.empty()) {
    refuse(text, "slow takes a schedule, @t=SECONDS or @flap=SECONDS, not the point '" + schedule + "'");
  }
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
  fault.rank = std::stoi(rank);
  std::string action = text.substr(colon + 1);
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
    parse_slow(text, action.substr(5), fault);
  } else if (action == "exit" || action == "kill" || action == "skip") {
    fault.action = action;
  } else {
    refuse(text, "unknown action '" + action + "'");
  }
  return fault;
}

double slow_factor_at(const FaultInjection& fault, double elapsed_s) {
  if (fault.action != "slow" || elapsed_s < fault.from_s) return 1;
  if (fault.flap_s > 0 && static_cast<long long>(std::floor(elapsed_s / fault.flap_s)) % 2 == 0) return 1;
  return fault.factor;
}

std::string to_text(const FaultInjection& fault) {
  if (fault.rank < 0) return "";
  if (fault.action == "slow") {
    const std::string schedule = fault.flap_s > 0 ? "@flap=" + std::to_string(fault.flap_s)
                                                  : "@t=" + std::to_string(fault.from_s);
    return std::to_string(fault.rank) + ":slow=" + std::to_string(static_cast<int>(fault.factor)) + schedule;
  }
  const std::string action = fault.action == "sleep" ? "sleep=" + std::to_string(fault.seconds) : fault.action;
  return std::to_string(fault.rank) + ":" + action + "@" + fault.point;
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
