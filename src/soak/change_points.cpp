#include "soak/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/iteration_stats.hpp"

namespace ncclsweep::soak {
namespace {

constexpr double kMadToSigma = 1.4826;

double mad(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double centre = median_of(values);
  std::vector<double> deviations;
  for (const double v : values) deviations.push_back(std::fabs(v - centre));
  return median_of(deviations);
}

// The squared error of any run of values about its own mean, in O(1) from prefix sums:
// every cut of a series is tried in O(n).
class SegmentErrors {
 public:
  explicit SegmentErrors(const std::vector<double>& values) : sum_(values.size() + 1, 0), squares_(values.size() + 1, 0) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      sum_[i + 1] = sum_[i] + values[i];
      squares_[i + 1] = squares_[i] + values[i] * values[i];
    }
  }
  double operator()(std::size_t from, std::size_t to) const {
    const double s = sum_[to] - sum_[from], count = static_cast<double>(to - from);
    return (squares_[to] - squares_[from]) - s * s / count;
  }

 private:
  std::vector<double> sum_, squares_;
};

}  // namespace

double window_noise(const std::vector<double>& values) {
  if (values.size() < 3) return 0;
  std::vector<double> differences;
  for (std::size_t i = 1; i < values.size(); ++i) differences.push_back(values[i] - values[i - 1]);
  return kMadToSigma * mad(differences) / std::sqrt(2.0);
}

double step_residual_noise(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n < 4) return 0;
  const SegmentErrors error(values);
  std::size_t best = 2;
  double best_error = INFINITY;
  for (std::size_t cut = 2; cut + 2 <= n; ++cut) {
    if (const double e = error(0, cut) + error(cut, n); e < best_error) best_error = e, best = cut;
  }
  const std::vector<double> before(values.begin(), values.begin() + static_cast<long>(best));
  const std::vector<double> after(values.begin() + static_cast<long>(best), values.end());
  const double level_before = median_of(before), level_after = median_of(after);
  std::vector<double> distances;
  for (const double v : before) distances.push_back(std::fabs(v - level_before));
  for (const double v : after) distances.push_back(std::fabs(v - level_after));
  return kMadToSigma * median_of(distances);
}

double effective_band(const std::vector<double>& values, double relative_band) {
  return std::max(std::log1p(relative_band), 2 * std::min(window_noise(values), step_residual_noise(values)));
}

std::optional<ChangePoint> cusum_change(const std::vector<double>& values, double band, int baseline) {
  const int n = static_cast<int>(values.size());
  baseline = std::max(1, std::min(baseline, n));
  if (n < baseline + 2 || !(band > 0)) return std::nullopt;
  const double level = median_of({values.begin(), values.begin() + baseline});
  const double slack = band, decision = 4 * band, clip = 3 * band;
  double up = 0, down = 0;
  int up_zero = -1, down_zero = -1;  // last window where each sum was zero
  for (int i = 0; i < n; ++i) {
    const double move = std::clamp(values[static_cast<std::size_t>(i)] - level, -clip, clip);
    up = std::max(0.0, up + move - slack);
    down = std::max(0.0, down - move - slack);
    if (up == 0) up_zero = i;
    if (down == 0) down_zero = i;
    if (up > decision || down > decision) {
      // The sum starts after its last zero, but noise that nudged it before the change
      // (a dip or two inside the band's reach) pulls that early: of the windows from there
      // to the alarm, the start is the cut where two levels fit the series best.
      const int earliest = std::max((up > decision ? up_zero : down_zero) + 1, 1);
      const SegmentErrors error(values);
      int start = earliest;
      double best = INFINITY;
      for (int cut = earliest; cut <= i; ++cut) {
        const double e = error(0, static_cast<std::size_t>(cut)) + error(static_cast<std::size_t>(cut), static_cast<std::size_t>(n));
        if (e < best) best = e, start = cut;
      }
      // The step is judged against everything before it, not the few baseline windows:
      // a baseline that happened to sit off-centre must not read as a drift of noise.
      const double before = start >= baseline ? median_of({values.begin(), values.begin() + start}) : level;
      const double after = median_of({values.begin() + start, values.end()});
      const double step = std::expm1(after - before);
      if (std::fabs(after - before) <= band) return std::nullopt;
      return ChangePoint{start, i, step};
    }
  }
  return std::nullopt;
}

std::optional<TwoLevels> two_levels(const std::vector<double>& values, double relative_band) {
  const std::size_t n = values.size();
  const std::size_t least = std::max<std::size_t>(2, (n + 3) / 4);
  if (n < 2 * least) return std::nullopt;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const SegmentErrors error(sorted);
  std::size_t best = 0;
  double best_error = INFINITY;
  for (std::size_t cut = least; cut + least <= n; ++cut) {
    const double e = error(0, cut) + error(cut, n);
    if (e < best_error) best_error = e, best = cut;
  }
  const std::vector<double> low(sorted.begin(), sorted.begin() + static_cast<long>(best));
  const std::vector<double> high(sorted.begin() + static_cast<long>(best), sorted.end());
  TwoLevels levels;
  levels.low = median_of(low);
  levels.high = median_of(high);
  // The spread within the levels: each window's distance from its own level's median,
  // pooled. The larger level's own MAD would let the few windows that straddle a change
  // (between the levels) set the spread of a small level and hide a real flap.
  std::vector<double> deviations;
  for (const double v : low) deviations.push_back(std::fabs(v - levels.low));
  for (const double v : high) deviations.push_back(std::fabs(v - levels.high));
  const double within = kMadToSigma * median_of(deviations);
  const double gap = levels.high - levels.low;
  if (gap <= 2 * std::log1p(relative_band) || gap <= 4 * within) return std::nullopt;
  const double middle = (levels.low + levels.high) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    levels.level.push_back(values[i] >= middle ? 1 : 0);
    if (i > 0 && levels.level[i] != levels.level[i - 1]) ++levels.changes;
  }
  // The best single step, either way round: before[c] counts the high windows before c.
  std::vector<int> high_before(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) high_before[i + 1] = high_before[i] + levels.level[i];
  const int highs = high_before[n];
  levels.step_misfits = static_cast<int>(n);
  for (std::size_t cut = 0; cut <= n; ++cut) {
    const int low_then_high = high_before[cut] + static_cast<int>(n - cut) - (highs - high_before[cut]);
    const int high_then_low = static_cast<int>(cut) - high_before[cut] + (highs - high_before[cut]);
    levels.step_misfits = std::min({levels.step_misfits, low_then_high, high_then_low});
  }
  return levels;
}

bool is_flap(const TwoLevels& levels) {
  const int n = static_cast<int>(levels.level.size());
  return levels.changes >= 3 && levels.step_misfits > std::max(1, n / 10);
}

}  // namespace ncclsweep::soak
