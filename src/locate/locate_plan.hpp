#pragma once
// What one `ncclsweep locate` measures, in which order, and how long that should take.
#include <string>
#include <vector>

#include "locate/locate_kinds.hpp"
#include "core/collective.hpp"
#include "core/units.hpp"
#include "locate/host_layout.hpp"
#include "measure/fixed_test.hpp"

namespace ncclsweep::locate {

struct LocateOptions {
  bool host_phase = true;
  bool pairs_phase = true;
  bool by_rail = false;
  PairSchedule pairs = PairSchedule::all;
  std::vector<Bytes> sizes;   // total sizes (nccl-tests convention)
  int warmup = 2;             // untimed calls per test and group, after each split
  int iters = 10;             // timed calls per repeat
  int repeats = 3;            // per pass; the spread of all of a test's repeats is its noise band
  int passes = 1;             // the whole schedule this many times, each pass split anew
  double threshold = 0.9;     // slow below this share of the reference
};

// Parses --phases "host,pairs" into the options. Throws UsageError.
void set_phases(LocateOptions& options, const std::string& phases);

// host: AllReduce and AllGather, and SendRecv to the neighbour on the host, at each size;
// pairs: AllGather and SendRecv across the pair; rails and gpus: SendRecv between the
// group's two ranks.
std::vector<FixedTest> tests_for(LocatePhase phase, const std::vector<Bytes>& sizes);

// How much slower than the step's typical group (the lower median of the measured
// groups' times) a group's warm-up must be before it gets fewer timed calls.
inline constexpr double kSlowGroupFactor = 4;
// A repeat shorter than this is never cut: one warm-up call of a sub-millisecond test on
// shared cores reads several times its peers' now and then, and the time it would save is
// nothing.
inline constexpr double kUncutRepeatSeconds = 1;

// The typical group's seconds per call: the lower median of the measured groups' (0 with
// fewer than two timed).
double typical_group_seconds(const std::vector<double>& warmup_call_s, const std::vector<bool>& measured);

// Timed calls per repeat of one test for each group of a step, from each group's seconds
// per warm-up call (its slowest rank's; `measured[g]` false for a group run only so every
// rank calls alike): `iters`, except that a group more than kSlowGroupFactor times slower
// than the typical group, whose repeat would last over kUncutRepeatSeconds, gets as many
// calls as fill kSlowGroupFactor times the typical group's repeat (or kUncutRepeatSeconds
// where that is longer), at least one. Its first calls already show it slow; a link at a
// hundredth of its speed would otherwise hold every rank for hours.
std::vector<int> iters_per_group(const std::vector<double>& warmup_call_s, const std::vector<bool>& measured, int iters);

// Every split of one pass, in order: the host step and the gpus steps (host phase), the
// pairs rounds, the rails rounds.
std::vector<Step> plan_steps(const HostLayout& layout, const LocateOptions& options);

// A layout of `hosts` hosts of `ranks_per_host` ranks each (host0, host1, ...), for
// estimates before a launch.
HostLayout uniform_layout(int hosts, int ranks_per_host);

struct LocateEstimate {
  int steps = 0, rounds = 0;
  long long measurements = 0;  // past 2^31 at the largest allocations the options allow
  double launch_s = 0;       // processes and the world communicator
  double splits_s = 0;       // a split per step
  double collectives_s = 0;  // warm-up and timed calls
  double coordination_s = 0; // one reduction of the tests' times per step
  double per_round_s = 0;    // one pairs round (0 without the pairs phase)
  double per_split_s = 0;    // the costliest split: its group's init and the world's colour exchange
  double total_s() const { return launch_s + splits_s + collectives_s + coordination_s; }
};

// From the rank-count model `plan --ranks` uses (docs/scale.md): per-call latency growing
// with log2(ranks), a bus bandwidth, a split costing its group's communicator init (0.1 s
// + 1 ms per group rank) and an exchange of colours over the world (50 us per world rank).
// Counted from each step's shape (how many groups it measures and their largest rank
// count), never from the steps themselves: 100000 hosts of 1024 ranks are 10^5 pairs
// rounds of 10^8 ranks each, which no estimate may build. `host_sizes`: ranks per host.
// Exact for uniform hosts; with uneven hosts a pair round is costed at its two largest.
LocateEstimate estimate_locate(const std::vector<int>& host_sizes, const LocateOptions& options, double busbw_bytes_per_s);

}  // namespace ncclsweep::locate
