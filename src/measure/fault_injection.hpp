#pragma once
// --inject-fault RANK:ACTION@POINT, a documented testing aid (docs/reliability.md): one
// chosen rank misbehaves at the start of one sweep point's measurements, so deadlines,
// containment and the sweep going on can be shown on purpose.
//   sleep=SECONDS  hang that long (a hung rank: the point times out)
//   exit           exit with status 3 (a crash)
//   kill           SIGKILL itself (a crash without a word)
//   skip           skip the point's collectives (the other ranks wait in theirs)
//   slow=FACTOR    every timed call that rank R takes part in runs FACTOR whole times
//                  (Engine::slow_down, locate's mechanism), on every rank of its
//                  communicator so they stay in step: R's collectives take about FACTOR
//                  x as long. Without @POINT, every point. The mpi engine only.
//                  With a schedule instead of a point (soak, docs/soak.md): @t=SECONDS
//                  slow from that time on, @flap=SECONDS normal and slow alternating
//                  for that long each (normal first).
//   slow=F@POINT[;F@POINT...]  (no RANK:) every rank runs each timed call of POINT F
//                  times, F a whole number >= 2: points made slower by known factors,
//                  so a search's true winners are known (docs/search.md). POINT is a
//                  search candidate's label; the mpi engine only.
//   cpu-hog        keep every core the rank may run on busy while it measures
//                  (`ncclsweep probe`, `run --probe`: CpuHog below)
// In workers (nccl engine) the worker misbehaves; with the mpi engine the MPI rank does.
#include <cstddef>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "core/name_table.hpp"
#include "plan/measurement_plan.hpp"

namespace ncclsweep {

enum class FaultAction { none, sleep, exit, kill, skip, slow, cpu_hog };
// The names --inject-fault takes (none is no fault and has no name).
inline constexpr NameTable<FaultAction, 6> kFaultActionNames{
    "fault action",
    {{{FaultAction::sleep, "sleep"}, {FaultAction::exit, "exit"}, {FaultAction::kill, "kill"}, {FaultAction::skip, "skip"},
      {FaultAction::slow, "slow"}, {FaultAction::cpu_hog, "cpu-hog"}}}};

struct FaultInjection {
  static constexpr int kEveryRank = -2;
  int rank = -1;          // -1: none; kEveryRank: a search's slow=F@POINT, on every rank
  FaultAction action = FaultAction::none;
  double seconds = 0;     // sleep only
  double factor = 1;      // RANK:slow only: whole calls per call, 2..100
  std::vector<std::pair<std::string, int>> slowed;  // slow=F@POINT only: candidate label -> factor
  std::string point = "default";  // label of the sweep point; "default" without a sweep; "" (slow): every point
  double from_s = 0;      // slow only (@t=): slowed from this many seconds into the timeline
  double flap_s = 0;      // slow only (@flap=): > 0 alternates normal and slow every flap_s

  bool applies(int this_rank, const std::string& this_point) const {
    return (rank == this_rank || rank == kEveryRank) && (point.empty() || point == this_point);
  }
  // RANK:slow: whether a rank whose communicator holds rank R is slowed at this point.
  bool slows(const std::string& this_point) const {
    return action == FaultAction::slow && rank >= 0 && (point.empty() || point == this_point);
  }
};

// Throws UsageError naming the text and the accepted form.
FaultInjection parse_fault_injection(const std::string& text);

// A slow fault's factor `elapsed_s` seconds into the timeline: `factor` while its
// schedule says slow, else 1 (and 1 for every other action).
double slow_factor_at(const FaultInjection& fault, double elapsed_s);

// The text parse_fault_injection reads (for the worker's start message); "" for none.
std::string to_text(const FaultInjection& fault);

// The factor `point`'s calls are slowed by on this rank (1: not slowed).
int slow_factor(const FaultInjection& fault, int this_rank, const std::string& point);

// RANK:slow=F[@POINT]: F on every rank that shares a communicator of `plan` with RANK (so
// they stay in step), at the points it names; 1 elsewhere.
int point_slow_factor(const FaultInjection& fault, const MeasurementPlan& plan, int this_rank, const std::string& point);

// Sleeps, exits or kills this process as `fault` says; returns true for "skip" (the
// caller skips its collectives), false after a sleep. "slow" is no action here: the
// caller gives the engine the factor (FaultInjection::slows).
bool inject_fault(const FaultInjection& fault);

// The cpu-hog fault: kSpinnersPerCore busy loops on each of `cpus`, in a child process
// at the rank's own priority (fault_injection.cpp says why that, and why not real-time),
// all running before the constructor returns. It stays in the rank's
// session, so in the rank's scheduling group: the kernel shares a core fairly between
// groups first and applies nice only inside one, so a hog in a group of its own took
// half the core and no more. A child process rather than threads of the rank, so that
// the rank's own CPU time stays the rank's. The child dies with its owner (and the rank).
inline constexpr std::size_t kSpinnersPerCore = 4;
class CpuHog {
 public:
  explicit CpuHog(const std::vector<int>& cpus);
  ~CpuHog();
  CpuHog(const CpuHog&) = delete;
  CpuHog& operator=(const CpuHog&) = delete;

 private:
  pid_t child_ = -1;
};

}  // namespace ncclsweep
