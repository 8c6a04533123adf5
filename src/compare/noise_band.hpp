#pragma once
// How far one busbw figure may move without anything having changed: the noise band
// a verdict must see past (docs/compare.md, "Verdicts"). Kept apart from the verdict
// logic so other reasons for an ambiguous row can sit beside it.
#include <string>

#include "compare/side.hpp"

namespace ncclsweep {

// Both defaults are half the largest move measured between two launches of the same
// tool on one 2x H200 machine (docs/compare.md), so two launches that moved that far
// still have overlapping bands: ambiguous, never a failure.
// Relative part: +-4%, from nccl-tests 4 GiB in place moving by 8.0% between launches
// (3.1% at 1 GiB, under 2% from 4 MiB to 256 MiB).
inline constexpr double kDefaultNoiseRelative = 0.04;
// Time part: +-1.1 us, from 20-call 1 MiB measurements moving by up to 2.2 us. Launch
// jitter is a time, not a share: most of a 12 us call, nothing at 150 us.
inline constexpr double kDefaultNoiseTimeUs = 1.1;

struct NoiseModel {
  double relative = kDefaultNoiseRelative;
  double time_us = kDefaultNoiseTimeUs;
};

// Half-width of one figure's band in GB/s.
// - A single figure (one nccl-tests row, one record): relative x busbw plus the busbw
//   that time_us of jitter moves it by (busbw x time_us / time), plus half the last
//   printed digit. A figure that carries a spread from within its own launch (a
//   record's standard error, nccl-tests -I percentiles) uses it when larger than
//   the relative part; the launch jitter still applies, as one launch cannot show it.
// - Repeats folded into one row: their measured spread decides (at least the relative
//   part), with no time part: the repeats already show how far the time moves.
double noise_band_gbps(const SideRow& row, const NoiseModel& noise);

// "+-4% + 1.1 us of time per single figure; repeats use their measured spread"
std::string describe_noise(const NoiseModel& noise);

}  // namespace ncclsweep
