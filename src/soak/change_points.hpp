#pragma once
// The statistics behind soak's verdicts, over one series of per-window values in log
// space (log of busbw or of a clock: a step of -0.1 is a 10% drop whatever the level).
// Pure: each is a function of the values and a band, so unit tests drive them directly.
#include <optional>
#include <vector>

namespace ncclsweep::soak {

// The window-to-window noise of a series: 1.4826 x the median absolute deviation of its
// first differences, over sqrt(2). A step moves one difference only, so it barely counts.
double window_noise(const std::vector<double>& values);

// The noise about the best single step: the series cut where two levels fit it best
// (least squares, two windows or more on each side), and 1.4826 x the median distance
// of each window from its own side's median. A slowed stretch that dips back now and
// then moves several first differences, not one, and would count as noise in
// window_noise; here the step itself is the fit, not noise. 0 for under four windows.
double step_residual_noise(const std::vector<double>& values);

// The band a move must leave before it counts: the larger of the fixed relative band
// (in log space) and twice the series' own noise, the smaller of window_noise and
// step_residual_noise (each reads a real drift as noise in its own way; the smaller is
// the one that did not).
double effective_band(const std::vector<double>& values, double relative_band);

struct ChangePoint {
  int start = 0;       // first window of the new level
  int alarm = 0;       // the window where the evidence first sufficed
  double step = 0;     // the new level over the old, minus 1 (-0.42: 42% lower)
};

// Two-sided CUSUM (Page) against the median of the first `baseline` windows, with slack
// k = band (moves inside the band add nothing), decision h = 4 x band, and each window's
// move clipped to +-3 x band, so one wild window adds at most 2 x band and never alarms
// alone (that is an outlier, not a drift): a drift needs several windows off the level.
// The change starts between the last window where the alarming sum was zero and the
// alarm, where two levels fit the whole series best (least squares). Nothing when no
// alarm, or when the step it leads to is inside the band.
std::optional<ChangePoint> cusum_change(const std::vector<double>& values, double band, int baseline);

struct TwoLevels {
  double low = 0, high = 0;   // medians of the two levels (log space)
  std::vector<int> level;     // per window: 0 low, 1 high
  int changes = 0;            // times consecutive windows changed level
  // Windows that one step (one level, then the other) would get wrong: 0 for a clean step,
  // about half the windows for levels that alternate. A step with a stray window or two
  // changes level three times too, and this is what tells it from a flap.
  int step_misfits = 0;
};

// A flap: the levels change at least three times and no single step explains them but
// for max(1, n / 10) windows.
bool is_flap(const TwoLevels& levels);

// Bimodal: the split of the sorted values into two levels with the least squared error,
// each level at least a quarter of the windows (and two), the levels further apart than
// both 2 x `relative_band` and 4 x the spread within them (1.4826 x the median distance
// of each window from its own level's median). Nothing when no such split exists.
std::optional<TwoLevels> two_levels(const std::vector<double>& values, double relative_band);

}  // namespace ncclsweep::soak
