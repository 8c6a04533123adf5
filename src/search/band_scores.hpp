#pragma once
// The statistics a search decides by (docs/search.md, "The statistics"). A candidate's
// score in a band, for one occasion it was measured, is the mean log algbw over the
// band's sizes (in one band busbw is algbw times a constant, and it is 0 on one rank);
// across occasions, their mean and spread. Two candidates are told apart
// with compare's noise band (compare/noise_band.hpp), widened by the measured spread of
// the occasions at the search's confidence.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/noise_band.hpp"
#include "core/units.hpp"

namespace ncclsweep {

// One record as the search reads it.
struct SearchSample {
  int candidate = 0;
  int occasion = 0;  // which measurement of the candidate (a round's item)
  int band = 0;
  double algbw_gbps = 0;
  double time_us = 0;
  double spread = 0;  // the record's own relative standard error
};

struct BandScore {
  int occasions = 0;
  double mean_log = 0;  // mean over occasions of the mean log algbw
  double sd_log = 0;    // their standard deviation; 0 below two occasions
  double time_us = 0;   // mean time of the samples
  double spread = 0;    // mean own spread of the samples
  double algbw_gbps() const;
};

class BandScores {
 public:
  void add(const SearchSample& sample);
  // Empty when the candidate was never measured in the band.
  std::optional<BandScore> score(int candidate, int band) const;

 private:
  struct Sums {
    double log_sum = 0, time_sum = 0, spread_sum = 0;
    int samples = 0;
  };
  std::map<std::pair<int, int>, std::map<int, Sums>> by_candidate_band_;  // -> occasion -> sums
};

// How `other` stands against `leader` in one band.
struct Standing {
  double gain = 0;      // leader / other algbw - 1
  bool beaten = false;  // the leader is faster beyond the noise bands of both
  bool tied = false;    // no further occasion can show that: the gap's upper bound is inside the noise
};

struct SearchStatistics {
  NoiseModel noise;
  double confidence = 0.95;
  int min_occasions_for_tie = 3;  // a tie is only called on this many occasions of each
};

// Two-sided quantile of Student's t at `confidence` with `df` degrees of freedom
// (Cornish-Fisher expansion around the normal's; df <= 0: the normal's).
double t_quantile(double confidence, int df);

// Relative half-width of a score's band: compare's noise_band_gbps over a row with the
// score's algbw, time and occasions, its measured spread widened to t x standard error.
double score_band(const BandScore& score, const SearchStatistics& stats);

Standing stand(const BandScore& leader, const BandScore& other, const SearchStatistics& stats);

}  // namespace ncclsweep
