#pragma once
// The soak's window loop on one connected engine (docs/soak.md, "Windows"). The world
// is split once by host, as locate's host phase splits it (locate::host_step); then,
// window after window, rounds of every test run on the world communicator and on every
// host's split at once, until the window's time is up; each window's figure is the
// median of its rounds. Every rank samples its signals as the window ends, rank 0's
// clock decides for all, and a stop request on any rank ends the loop after the
// current window. Once rank 0 asks for a trace (a world drift no host's own split
// explains: traffic between hosts), every later window's rounds also run the tests on
// pairs of hosts, a round of locate's pairs schedule (locate::round_robin) each, so the
// verdicts can name the host or link behind it. Engine-neutral: Engine and Coordinator only.
#include <functional>
#include <string>
#include <vector>

#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "locate/host_layout.hpp"
#include "measure/fault_injection.hpp"
#include "soak/soak_verdicts.hpp"
#include "soak/soak_window.hpp"
#include "soak/window_sampler.hpp"

namespace ncclsweep::soak {

struct SoakOptions {
  double window_s = 30;
  double duration_s = 3600;  // of the whole timeline, resumed launches included
  std::vector<const CollectiveKind*> collectives{&collective("all_reduce"), &collective("all_gather")};
  std::vector<Bytes> sizes{Bytes{256} << 20};
  int warmup = 5;            // untimed calls per test and communicator, once per launch
  int iters = 10;            // timed calls per test in a round
  VerdictOptions verdicts;
};

// Where this launch's part of the timeline starts (a --resume continues the last one).
struct TimelineStart {
  int next_window = 0;
  double elapsed_s = 0;
  int launch = 1;
};

enum class SoakEnd { duration, stopped };

// Called on every rank with the same window as each ends.
using WindowDone = std::function<void(const SoakWindow& window)>;
// This rank's stop request: a signal number, or 0.
using StopRequest = std::function<int()>;
// Rank 0's answer after each window: whether the windows from the next on trace pairs of
// hosts (wants_trace of the verdicts so far). Once on, tracing stays on.
using TraceRequest = std::function<bool()>;

// Whether these verdicts ask for pair tests: a drift or flap of the world's series.
bool wants_trace(const SoakVerdicts& verdicts);

// Collective: every rank calls it with the same layout and options. `fault` (the
// testing aid, action "slow") slows this rank's communicators while its schedule says so
// (the world's, its host's, and a pair's with it). Pairs are traced only with three hosts
// or more (of two, the pair is the world).
SoakEnd run_soak(Engine& engine, Coordinator& ranks, const locate::HostLayout& layout, const SoakOptions& options,
                 WindowSampler& sampler, const FaultInjection& fault, const TimelineStart& start,
                 const StopRequest& stop, const WindowDone& on_window, const TraceRequest& trace = {});

// Signals travel to every rank as numbers (max over ranks, each rank filling its slot):
// these two are that encoding, pure, so a test can round-trip them.
inline constexpr std::size_t kSignalFields = 7 + kThrottleReasons;
void encode_signals(const RankSignals& signals, double* fields);
RankSignals decode_signals(const double* fields);

}  // namespace ncclsweep::soak
