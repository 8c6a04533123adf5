#include "measure/fault_injection.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
                   "write RANK:ACTION[@POINT] with ACTION sleep=SECONDS, exit, kill, skip, slow=FACTOR or cpu-hog, e.g. "
                   "1:sleep=600@p2 or 3:slow=4; slow also takes a schedule, RANK:slow=FACTOR@t=SECONDS or "
                   "RANK:slow=FACTOR@flap=SECONDS; or, for a search, slow=F@POINT[;F@POINT] on every rank");
}

// A number from `low` to `high` or a refusal naming `what`.
double number_in(const std::string& text, const std::string& value, double low, double high, const std::string& what) {
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(number >= low) || number > high) refuse(text, what);
  return number;
}

// slow=FACTOR and what follows its @: a point label ("" for every point), or a schedule
// over the timeline, "t=SECONDS" (slow from then on) or "flap=SECONDS" (alternating).
void parse_slow(const std::string& text, const std::string& factor, FaultInjection& fault) {
  fault.action = FaultAction::slow;
  const std::string why = "slow needs a whole factor from 2 to 100 (each call runs that many times)";
  fault.factor = number_in(text, factor, 2, 100, why);
  if (fault.factor != std::floor(fault.factor)) refuse(text, why);
  const std::string schedule = fault.point;
  if (schedule.rfind("t=", 0) == 0) {
    fault.from_s = number_in(text, schedule.substr(2), 0, 1e7, "@t= needs the seconds into the timeline, e.g. @t=60");
    fault.point.clear();
  } else if (schedule.rfind("flap=", 0) == 0) {
    fault.flap_s = number_in(text, schedule.substr(5), 0.001, 1e7, "@flap= needs the seconds each level lasts, e.g. @flap=10");
    fault.point.clear();
  }
}

// slow=F@POINT[;F@POINT...]: every rank repeats each timed call of POINT F times.
FaultInjection parse_point_slowdowns(const std::string& text) {
  FaultInjection fault;
  fault.rank = FaultInjection::kEveryRank;
  fault.action = FaultAction::slow;
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
  if (text.rfind("slow=", 0) == 0) return parse_point_slowdowns(text);
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
    fault.action = FaultAction::sleep;
  } else if (action.rfind("slow=", 0) == 0) {
    parse_slow(text, action.substr(5), fault);
  } else if (const auto named = kFaultActionNames.find(action);
             named && *named != FaultAction::sleep && *named != FaultAction::slow) {
    fault.action = *named;
  } else {
    refuse(text, "unknown action '" + action + "'");
  }
  return fault;
}

double slow_factor_at(const FaultInjection& fault, double elapsed_s) {
  if (fault.action != FaultAction::slow || elapsed_s < fault.from_s) return 1;
  if (fault.flap_s > 0 && static_cast<long long>(std::floor(elapsed_s / fault.flap_s)) % 2 == 0) return 1;
  return fault.factor;
}

std::string to_text(const FaultInjection& fault) {
  if (fault.action == FaultAction::slow && fault.rank == FaultInjection::kEveryRank) {
    std::string text = "slow=";
    for (const auto& [point, factor] : fault.slowed) text += (text.size() > 5 ? ";" : "") + std::to_string(factor) + "@" + point;
    return text;
  }
  if (fault.rank < 0) return "";
  if (fault.action == FaultAction::slow) {
    const std::string after = fault.flap_s > 0    ? "@flap=" + std::to_string(fault.flap_s)
                              : fault.from_s > 0  ? "@t=" + std::to_string(fault.from_s)
                              : fault.point.empty() ? std::string()
                                                    : "@" + fault.point;
    return std::to_string(fault.rank) + ":slow=" + std::to_string(static_cast<int>(fault.factor)) + after;
  }
  const std::string action = fault.action == FaultAction::sleep ? "sleep=" + std::to_string(fault.seconds)
                                                                : std::string(kFaultActionNames.name(fault.action));
  return std::to_string(fault.rank) + ":" + action + (fault.point.empty() ? "" : "@" + fault.point);
}

int slow_factor(const FaultInjection& fault, int this_rank, const std::string& point) {
  if (fault.action != FaultAction::slow || (fault.rank != this_rank && fault.rank != FaultInjection::kEveryRank)) return 1;
  for (const auto& [slowed, factor] : fault.slowed) {
    if (slowed == point) return factor;
  }
  return 1;
}

int point_slow_factor(const FaultInjection& fault, const MeasurementPlan& plan, int this_rank, const std::string& point) {
  if (!fault.slows(point)) return 1;
  return comm_colors(plan, this_rank) == comm_colors(plan, fault.rank) ? static_cast<int>(fault.factor) : 1;
}

CpuHog::CpuHog(const std::vector<int>& cpus) {
  // Each spinner writes a byte here once it runs on its core, and the constructor waits
  // for them: a probe that starts before the hog is on the CPU measures an idle core.
  int ready[2] = {-1, -1};
  if (pipe2(ready, O_CLOEXEC) != 0) throw RuntimeFailure("pipe for --inject-fault cpu-hog failed", "");
  const pid_t parent = getpid();
  child_ = fork();
  if (child_ < 0) {
    close(ready[0]);
    close(ready[1]);
    throw RuntimeFailure("fork for --inject-fault cpu-hog failed", "");
  }
  if (child_ > 0) {
    close(ready[1]);
    const std::size_t spinners = std::max<std::size_t>(cpus.size(), 1) * kSpinnersPerCore;
    std::size_t seen = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);  // best effort after that
    while (seen < spinners && std::chrono::steady_clock::now() < deadline) {
      pollfd wait{ready[0], POLLIN, 0};
      if (poll(&wait, 1, 100) <= 0) continue;
      char bytes[64];
      const ssize_t got = read(ready[0], bytes, sizeof bytes);
      if (got <= 0) break;  // every spinner gone: nothing more will come
      seen += static_cast<std::size_t>(got);
    }
    close(ready[0]);
    return;
  }
  // The child: no MPI, no allocation, only busy loops until it is killed.
  close(ready[0]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) std::_Exit(0);
  // At the rank's own priority, four spinners leave the rank a fifth of its core, in
  // slices of a few milliseconds, the way a hypervisor's busy threads take a vCPU; probe's
  // tests hold a rank to a quarter of its core by other means. At nice -20 the rank kept
  // 0.3%, and its own second of work between two probes took two minutes. Not real-time
  // FIFO: that runs 950 ms of every second and leaves the rank one 50 ms stretch, which a
  // 50 ms probe round can fall into whole and read as an idle core. No setsid(): with
  // autogroup scheduling a new session is a group of its own, and the rank kept half its
  // core (the kernel shares a core between groups first).
  const int ready_fd = ready[1];
  const auto spin_on = [ready_fd](int cpu) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    const char one = 1;
    if (write(ready_fd, &one, 1) != 1) {}  // the parent stops waiting at its deadline anyway
    close(ready_fd);
    for (unsigned long n = 0;; ++n) asm volatile("" : "+r"(n));  // busy on purpose; the asm keeps the loop
  };
  const std::vector<int> cores = cpus.empty() ? std::vector<int>{0} : cpus;
  const std::size_t spinners = cores.size() * kSpinnersPerCore;
  for (std::size_t i = 0; i + 1 < spinners; ++i) {
    if (fork() == 0) spin_on(cores[i % cores.size()]);  // its own process: dies by PDEATHSIG with this one
  }
  spin_on(cores.back());  // this process spins the last one
}

CpuHog::~CpuHog() {
  if (child_ <= 0) return;
  kill(child_, SIGKILL);
  waitpid(child_, nullptr, 0);
}

bool inject_fault(const FaultInjection& fault) {
  if (fault.action == FaultAction::slow) return false;  // slows calls where they are timed (slow_factor)
  std::fprintf(stderr, "ncclsweep: injecting fault %s\n", to_text(fault).c_str());
  std::fflush(stderr);
  if (fault.action == FaultAction::sleep) {
    std::this_thread::sleep_for(std::chrono::duration<double>(fault.seconds));
    return false;
  }
  if (fault.action == FaultAction::cpu_hog) return false;  // held for the whole probe by a CpuHog
  if (fault.action == FaultAction::exit) std::_Exit(kExitRuntime);
  if (fault.action == FaultAction::kill) {
    raise(SIGKILL);
    std::_Exit(kExitRuntime);  // not reached
  }
  return true;  // skip
}

}  // namespace ncclsweep
