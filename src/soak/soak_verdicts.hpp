#pragma once
// Verdicts over a soak's windows, per host and for the world (docs/soak.md, "Verdicts"):
//   drift       a sustained change of a series (busbw of one test, or a rank's SM clock)
//               found by a two-sided CUSUM, with when it started and the step;
//   flap        a series that moves between two levels and back, again and again;
//   throttling  windows where a rank's GPU had a power or thermal throttle reason on;
//   outliers    single windows below the threshold share of their level, counted.
// A host's busbw series is its figure over the median of all hosts' in the same window
// (with three hosts or more), so a load spell that slows every host alike moves no host;
// the world's series is its own figure, and catches what slows every host, or the
// traffic between hosts, which no host's own split carries. A world drift or flap is then
// traced: the pair tests of the windows after it (soak_runner.hpp) are judged as locate
// judges its pairs phase (locate::judge), and the host slow with most of its partners, or
// the link slow while both its hosts are fine with others, gets the same verdict, from the
// same window.
#include <string>
#include <string_view>
#include <vector>

#include "soak/soak_window.hpp"

namespace ncclsweep::soak {

struct VerdictOptions {
  double noise_relative = 0.04;  // the fixed part of the band (compare's default noise band)
  double threshold = 0.9;        // outliers: below this share of their level
  int baseline_windows = 3;      // the level a series starts from: the median of its first windows
};

enum class VerdictKind { drift, flap, throttling, outliers };
inline constexpr int kVerdictKinds = 4;
std::string_view name_of(VerdictKind kind);

struct Verdict {
  VerdictKind kind = VerdictKind::drift;
  SoakScope scope = SoakScope::host;
  int host = -1;           // -1: the world; SoakScope::pair: the lower host of the link
  int peer = -1;           // SoakScope::pair: the link's other host
  std::string series;      // "all_reduce 1 MiB busbw", "rank 3 sm clock"
  int first_window = 0;    // window index where it starts (drift, flap, throttling: the first such)
  double start_s = 0;      // seconds into the timeline of that window's start
  double step = 0;         // drift: new level / old - 1; flap: high / low - 1
  int windows = 0;         // throttling, outliers: how many windows; flap: level changes
  double lowest_mhz = 0;   // throttling: the lowest SM clock of those windows
  std::string evidence;    // one line for people
};

struct SoakVerdicts {
  std::vector<Verdict> findings;
  bool anything() const { return !findings.empty(); }
  // Whether `host` (-1: the world) has a verdict of `kind`, its own or on a link of it.
  bool has(int host, VerdictKind kind) const;
};

// From every window so far (in index order); `hosts`: the host count of the layout.
SoakVerdicts judge_soak(const std::vector<SoakWindow>& windows, int hosts, const VerdictOptions& options);

}  // namespace ncclsweep::soak
