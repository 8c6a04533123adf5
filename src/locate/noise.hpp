#pragma once
// The statistics locate's verdicts rest on (pure). Busbw is compared as a share of a
// reference, so figures are held as natural logs: a share is a difference, and a noise
// width is relative (0.05 is about 5%).
//   - A figure (one test of one group) is the median of its repeats; its own noise is
//     the standard error of that median, from the spread of those repeats.
//   - A spread (of peers, or of repeats pooled over a phase) is robust: 1.4826 x the
//     median absolute deviation, so a slow minority does not widen it.
//   - A subject is told from noise only when it sits `significance_widths(n)` noise widths
//     below its reference: 3, or more when n subjects are judged at once (the largest of n
//     healthy deviations grows as sqrt(2 ln n)).
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "locate/locate_kinds.hpp"
#include "locate/locate_record.hpp"

namespace ncclsweep::locate {

// The least noise width a share is judged against: GPU timing repeats to about 1%, and a
// spread estimated from a few steady figures can read less than the machine's own.
inline constexpr double kLeastNoiseWidth = 0.01;

// A noise width and how many degrees of freedom its estimate has: a spread of four
// hosts is known far less well than one of hundreds of repeats, and a subject is then
// named only further out (Student's t). A fixed floor or a given band counts as known.
struct NoiseWidth {
  double width = 0;
  int freedom = kKnownFreedom;
  static constexpr int kKnownFreedom = 1000000;
};
// The widest of several, with its own degrees of freedom.
NoiseWidth widest(std::initializer_list<NoiseWidth> widths);

// One test of one group: the log of the median of its repeats' busbw, and the standard
// error of that median from the repeats' own spread (0 with a single repeat).
struct LogFigure {
  double level = 0;
  double error = 0;
  int repeats = 0;
  double seconds_per_call = 0;  // the median of the repeats' per-call time
};

// What one group of a phase measured: its hosts, rail and ranks.
struct GroupKey {
  std::vector<int> hosts;
  int rail = -1;
  std::vector<int> ranks;
  auto operator<=>(const GroupKey&) const = default;
};

// Per test ("all_gather 256 KiB"), per group, the figure of its repeats.
using TestFigures = std::map<std::string, std::map<GroupKey, LogFigure>>;

struct PhaseFigures {
  TestFigures tests;
  // The standard error of one figure's median from the repeats of every figure of the
  // phase pooled (each repeat's deviation from its own figure's median): a few repeats
  // say little about their figure's noise, hundreds of a phase say much. 0 with one
  // repeat each.
  NoiseWidth pooled_error;
  double seconds_per_call = 0;  // the median over the phase's figures
};

// The phase's measurements as figures; a repeat of no bandwidth (0) is left out.
PhaseFigures log_figures(const std::vector<MeasurementRecord>& measurements, LocatePhase phase);

// 1.4826 x the median of |deviation|: the standard deviation of normal deviations from a
// known centre, robust to a minority far out. 0 for none.
double spread_of(const std::vector<double>& deviations);

// The value that more than half of `values` lie at or below: the median of an odd count,
// the higher middle value of an even one (the larger of two). A subject is "low" by it
// only when most of its values are. Not empty.
double upper_median(std::vector<double> values);

// The value that more than half of `values` lie at or above: the median of an odd count,
// the lower middle value of an even one. A subject is "high" by it only when most of its
// values are. Not empty.
double lower_median(std::vector<double> values);

// The value that at least three quarters lie at or below (the largest of up to four).
// Not empty.
double upper_quartile(std::vector<double> values);

// How many noise widths below its reference a subject must sit to be named, when
// `subjects` are judged together and the width has `freedom` degrees of freedom: the
// largest of 3, Student's t at one-sided 1% (a noise width from few peers is itself
// uncertain: 4.5 widths with three degrees of freedom), and sqrt(2 ln n) (the largest of
// n healthy deviations grows so).
double significance_widths(std::size_t subjects, int freedom = NoiseWidth::kKnownFreedom);

}  // namespace ncclsweep::locate
