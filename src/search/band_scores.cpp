#include "search/band_scores.hpp"

#include <algorithm>
#include <cmath>

#include "compare/side.hpp"

namespace ncclsweep {

double BandScore::algbw_gbps() const { return std::exp(mean_log); }

void BandScores::add(const SearchSample& sample) {
  if (!(sample.algbw_gbps > 0)) return;  // a failed measurement says nothing about speed
  Sums& s = by_candidate_band_[{sample.candidate, sample.band}][sample.occasion];
  s.log_sum += std::log(sample.algbw_gbps);
  s.time_sum += sample.time_us;
  s.spread_sum += sample.spread;
  ++s.samples;
}

std::optional<BandScore> BandScores::score(int candidate, int band) const {
  const auto found = by_candidate_band_.find({candidate, band});
  if (found == by_candidate_band_.end() || found->second.empty()) return std::nullopt;
  BandScore score;
  std::vector<double> per_occasion;
  double time = 0, spread = 0;
  int samples = 0;
  for (const auto& [occasion, s] : found->second) {
    per_occasion.push_back(s.log_sum / s.samples);
    time += s.time_sum;
    spread += s.spread_sum;
    samples += s.samples;
  }
  score.occasions = static_cast<int>(per_occasion.size());
  for (const double x : per_occasion) score.mean_log += x / score.occasions;
  if (score.occasions > 1) {
    double ss = 0;
    for (const double x : per_occasion) ss += (x - score.mean_log) * (x - score.mean_log);
    score.sd_log = std::sqrt(ss / (score.occasions - 1));
  }
  score.time_us = time / samples;
  score.spread = spread / samples;
  return score;
}

double t_quantile(double confidence, int df) {
  // The normal's two-sided quantile by bisection on erfc (monotone, 60 halvings).
  const double tail = (1 - confidence) / 2;
  double lo = 0, hi = 40;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? lo : hi) = mid;
  }
  const double z = (lo + hi) / 2;
  if (df <= 0) return z;
  const double n = df;
  return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

namespace {

double standard_error(const BandScore& s) { return s.occasions > 1 ? s.sd_log / std::sqrt(s.occasions) : 0; }

SideRow row_of(const BandScore& score, const SearchStatistics& stats) {
  SideRow row;
  row.busbw_gbps = score.algbw_gbps();  // compare's band is a share of whichever bandwidth it is given
  row.time_us = score.time_us;
  row.repeats = score.occasions;
  // One occasion shows only its own iterations' spread; more show how far occasions move.
  row.measured_spread =
      score.occasions > 1 ? t_quantile(stats.confidence, score.occasions - 1) * standard_error(score) : score.spread;
  return row;
}

}  // namespace

double score_band(const BandScore& score, const SearchStatistics& stats) {
  const SideRow row = row_of(score, stats);
  return noise_band_gbps(row, stats.noise) / row.busbw_gbps;
}

Standing stand(const BandScore& leader, const BandScore& other, const SearchStatistics& stats) {
  Standing s;
  const double lead = leader.algbw_gbps(), behind = other.algbw_gbps();
  s.gain = lead / behind - 1;
  // compare's verdict: faster when the two figures' noise bands do not overlap. The bands
  // are taken as factors (lead / (1 + band)): on a noisy machine a band passes 100%, and
  // lead * (1 - band) would then be below zero, so that no gap, however large, could win.
  s.beaten = lead / (1 + score_band(leader, stats)) > behind * (1 + score_band(other, stats));
  if (leader.occasions >= stats.min_occasions_for_tie && other.occasions >= stats.min_occasions_for_tie) {
    // Even infinitely many occasions leave each band at least the model's share, so a
    // gap whose upper confidence bound stays below both shares can never be beaten.
    const double se = std::hypot(standard_error(leader), standard_error(other));
    const int df = std::min(leader.occasions, other.occasions) - 1;
    const double gap_upper = std::fabs(leader.mean_log - other.mean_log) + t_quantile(stats.confidence, df) * se;
    s.tied = !s.beaten && gap_upper < std::log1p(stats.noise.relative) * 2;
  }
  return s;
}

}  // namespace ncclsweep
