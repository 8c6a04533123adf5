#include "runtime/fault_injection.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
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
                   "write RANK:ACTION[@POINT] with ACTION sleep=SECONDS, exit, kill, skip or cpu-hog, e.g. 1:sleep=600@p2");
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
  } else if (action == "exit" || action == "kill" || action == "skip" || action == "cpu-hog") {
    fault.action = action;
  } else {
    refuse(text, "unknown action '" + action + "'");
  }
  return fault;
}

std::string to_text(const FaultInjection& fault) {
  if (fault.rank < 0) return "";
  const std::string action = fault.action == "sleep" ? "sleep=" + std::to_string(fault.seconds) : fault.action;
  return std::to_string(fault.rank) + ":" + action + "@" + fault.point;
}

CpuHog::CpuHog(const std::vector<int>& cpus) {
  const pid_t parent = getpid();
  child_ = fork();
  if (child_ < 0) throw RuntimeFailure("fork for --inject-fault cpu-hog failed", "");
  if (child_ > 0) return;
  // The child: no MPI, no allocation, only busy loops until it is killed.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) std::_Exit(0);
  setsid();
  // Real-time FIFO where allowed (root): it preempts the rank as a hypervisor's threads
  // do, whatever else the machine runs (the kernel still leaves others 5% of each second).
  // Otherwise the highest nice this session may take.
  sched_param fifo{};
  fifo.sched_priority = 1;
  if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) setpriority(PRIO_PROCESS, 0, -20);
  const auto spin_on = [](int cpu) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    for (unsigned long n = 0;; ++n) asm volatile("" : "+r"(n));  // busy on purpose; the asm keeps the loop
  };
  for (std::size_t i = 1; i < cpus.size(); ++i) {
    if (fork() == 0) spin_on(cpus[i]);  // its own process: dies by PDEATHSIG with this one
  }
  spin_on(cpus.empty() ? 0 : cpus.front());
}

CpuHog::~CpuHog() {
  if (child_ <= 0) return;
  kill(child_, SIGKILL);
  waitpid(child_, nullptr, 0);
}

bool inject_fault(const FaultInjection& fault) {
  std::fprintf(stderr, "ncclsweep: injecting fault %s\n", to_text(fault).c_str());
  std::fflush(stderr);
  if (fault.action == "sleep") {
    std::this_thread::sleep_for(std::chrono::duration<double>(fault.seconds));
    return false;
  }
  if (fault.action == "cpu-hog") return false;  // held for the whole probe by a CpuHog
  if (fault.action == "exit") std::_Exit(kExitRuntime);
  if (fault.action == "kill") {
    raise(SIGKILL);
    std::_Exit(kExitRuntime);  // not reached
  }
  return true;  // skip
}

}  // namespace ncclsweep
