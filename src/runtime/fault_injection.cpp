#include "runtime/fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw UsageError("--inject-fault '" + text + "': " + why,
                   "write RANK:ACTION[@POINT] with ACTION sleep=SECONDS, exit, kill or skip, e.g. 1:sleep=600@p2, "
                   "or slow=F@POINT (every rank, F a whole number from 2 to 1000)");
}

// slow=F@POINT[;F@POINT...]: every rank repeats each timed call of POINT F times.
FaultInjection parse_slow(const std::string& text) {
  FaultInjection fault;
  fault.rank = FaultInjection::kEveryRank;
  fault.action = "slow";
  std::string rest = text.substr(5);
  while (!rest.empty()) {
    const auto end = rest.find(';');
    const std::string one = rest.substr(0, end);
    rest = end == std::string::npos ? "" : rest.substr(end + 1);
    const auto at = one.find('@');
    if (at == std::string::npos || at + 1 == one.size()) refuse(text, "slow needs the point it slows: slow=F@POINT");
    const std::string factor = one.substr(0, at);
    if (factor.empty() || factor.find_first_not_of("0123456789") != std::string::npos || factor.size() > 4 ||
        std::stoi(factor) < 2 || std::stoi(factor) > 1000) {
      refuse(text, "slow needs a whole factor from 2 to 1000 (calls are repeated, not stretched)");
    }
    fault.slowed.emplace_back(one.substr(at + 1), std::stoi(factor));
  }
  if (fault.slowed.empty()) refuse(text, "slow needs the point it slows: slow=F@POINT");
  fault.point = fault.slowed.front().first;
  return fault;
}

}  // namespace

FaultInjection parse_fault_injection(const std::string& text) {
  if (text.rfind("slow=", 0) == 0) return parse_slow(text);
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
  } else if (action == "exit" || action == "kill" || action == "skip") {
    fault.action = action;
  } else {
    refuse(text, "unknown action '" + action + "'");
  }
  return fault;
}

std::string to_text(const FaultInjection& fault) {
  if (fault.action == "slow") {
    std::string text = "slow=";
    for (const auto& [point, factor] : fault.slowed) text += (text.size() > 5 ? ";" : "") + std::to_string(factor) + "@" + point;
    return text;
  }
  if (fault.rank < 0) return "";
  const std::string action = fault.action == "sleep" ? "sleep=" + std::to_string(fault.seconds) : fault.action;
  return std::to_string(fault.rank) + ":" + action + "@" + fault.point;
}

int slow_factor(const FaultInjection& fault, int this_rank, const std::string& point) {
  if (fault.action != "slow" || (fault.rank != this_rank && fault.rank != FaultInjection::kEveryRank)) return 1;
  for (const auto& [slowed, factor] : fault.slowed) {
    if (slowed == point) return factor;
  }
  return 1;
}

bool inject_fault(const FaultInjection& fault) {
  if (fault.action == "slow") return false;  // slows calls where they are timed (slow_factor)
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
