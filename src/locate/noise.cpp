#include "locate/noise.hpp"

#include <algorithm>
#include <cmath>

#include "core/iteration_stats.hpp"

namespace ncclsweep::locate {
namespace {

constexpr double kNormalSigmaPerMad = 1.4826;
// The standard error of a median is sqrt(pi / 2) ~ 1.2533 times that of a mean.
constexpr double kMedianErrorFactor = 1.2533;

// Deviations of repeats from their own median, scaled up for the degree of freedom the
// median took (a sample's spread around its own centre reads low).
std::vector<double> repeat_deviations(const std::vector<double>& levels) {
  std::vector<double> out;
  if (levels.size() < 2) return out;
  const double centre = median_of(levels);
  const double scale = std::sqrt(static_cast<double>(levels.size()) / static_cast<double>(levels.size() - 1));
  for (const double level : levels) out.push_back((level - centre) * scale);
  return out;
}

double error_of_median(const std::vector<double>& deviations, std::size_t repeats) {
  if (repeats < 2) return 0;
  return kMedianErrorFactor * spread_of(deviations) / std::sqrt(static_cast<double>(repeats));
}

}  // namespace

double spread_of(const std::vector<double>& deviations) {
  if (deviations.empty()) return 0;
  std::vector<double> magnitudes;
  for (const double d : deviations) magnitudes.push_back(std::fabs(d));
  return kNormalSigmaPerMad * median_of(magnitudes);
}

double upper_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double lower_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

double upper_quartile(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(std::ceil(0.75 * static_cast<double>(values.size() - 1)))];
}

NoiseWidth widest(std::initializer_list<NoiseWidth> widths) {
  NoiseWidth out{0, NoiseWidth::kKnownFreedom};
  for (const NoiseWidth& w : widths) {
    if (w.width > out.width) out = w;
  }
  return out;
}

double significance_widths(std::size_t subjects, int freedom) {
  // Student's t, one-sided 1%, for 1..6 degrees of freedom; from 7 on it is below 3.
  static constexpr double kT[] = {31.82, 6.965, 4.541, 3.747, 3.365, 3.143};
  const double t = freedom >= 1 && freedom <= 6 ? kT[freedom - 1] : freedom < 1 ? kT[0] : 3.0;
  const double extremes = std::sqrt(2 * std::log(static_cast<double>(std::max<std::size_t>(subjects, 1))));
  return std::max({3.0, t, extremes});
}

PhaseFigures log_figures(const std::vector<MeasurementRecord>& measurements, LocatePhase phase) {
  struct Repeats {
    std::vector<double> levels, seconds;
  };
  std::map<std::string, std::map<GroupKey, Repeats>> repeats;
  for (const MeasurementRecord& m : measurements) {
    const LocatePlace& place = place_of(m);
    if (place.phase != phase || !(m.busbw_gbps > 0)) continue;
    Repeats& r = repeats[test_of(m)][{place.hosts, place.rail, place.group}];
    r.levels.push_back(std::log(m.busbw_gbps));
    r.seconds.push_back(m.call_seconds());
  }
  PhaseFigures phase_figures;
  std::vector<double> pooled, seconds;
  std::size_t most_repeats = 0;
  int repeated = 0;  // figures of two or more repeats
  for (const auto& [test, groups] : repeats) {
    for (const auto& [key, r] : groups) {
      const std::vector<double> deviations = repeat_deviations(r.levels);
      pooled.insert(pooled.end(), deviations.begin(), deviations.end());
      repeated += deviations.empty() ? 0 : 1;
      most_repeats = std::max(most_repeats, r.levels.size());
      phase_figures.tests[test][key] = {median_of(r.levels), error_of_median(deviations, r.levels.size()),
                                        static_cast<int>(r.levels.size()), median_of(r.seconds)};
      seconds.push_back(median_of(r.seconds));
    }
  }
  // Each figure's median took one degree of freedom from its repeats.
  phase_figures.pooled_error = {error_of_median(pooled, most_repeats), std::max(1, static_cast<int>(pooled.size()) - repeated)};
  phase_figures.seconds_per_call = seconds.empty() ? 0 : median_of(seconds);
  return phase_figures;
}

}  // namespace ncclsweep::locate
