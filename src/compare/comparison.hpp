#pragma once
// Judging a NEW side against a REFERENCE: pure, no I/O (docs/compare.md).
#include <optional>
#include <string>
#include <vector>

#include "compare/acceptance_gate.hpp"
#include "compare/noise_band.hpp"
#include "compare/side.hpp"

namespace ncclsweep {

inline constexpr double kDefaultThreshold = 0.95;
// A row whose noise band (either side's) is wider than this share of that side's own
// busbw cannot tell `same` from a large change: its verdict is `unresolved` unless the
// figures are apart even so. A quarter: a band that wide would call a 25% drop `same`.
inline constexpr double kDefaultMaxBandShare = 0.25;

struct CompareOptions {
  double threshold = kDefaultThreshold;  // NEW/REFERENCE busbw below this fails a slower row
  bool allow_rank_mismatch = false;
  NoiseModel noise;      // each single figure's band (--noise-rel, --noise-us)
  Bytes min_size = 0;    // rows below this size get no verdict (--min-size)
  double max_band_share = kDefaultMaxBandShare;  // --max-band
  // --target: the acceptance gate's bar (compare/acceptance_gate.hpp); empty: no gate.
  std::optional<double> target = std::nullopt;
};

// same / faster / slower: judged. ambiguous: the gap is inside what noise or a footprint
// difference explains. unresolved: the noise band is too wide for the figure to judge.
enum class Verdict { same, faster, slower, ambiguous, unresolved };
const char* verdict_name(Verdict v);

struct RowComparison {
  RowKey key;
  SideRow new_row, reference_row;
  double ratio = 0;          // NEW busbw / REFERENCE busbw; 0 when the reference is 0
  double new_band_gbps = 0;  // each side's noise half-width, absolute
  double reference_band_gbps = 0;
  Verdict verdict = Verdict::same;
  bool fails = false;        // slower and below the threshold, or wrong data
  bool wrong_data = false;   // NEW returned wrong elements: no result, however fast
  // The sides' footprints or cache states differ at a size where that matters; the
  // verdict already weighs it (compare/footprint_match.hpp), printers say so.
  bool footprint_differs = false;
};

struct Comparison {
  SideIdentity new_side, reference;
  CompareOptions options;  // what it was judged with
  std::vector<std::string> differences;  // the comparability block
  std::vector<std::string> notes;        // importers' notes, prefixed by side
  std::vector<RowComparison> rows;       // matched rows, in key order
  // The pooled rows against the target, with NEW's noise (options.target set).
  std::optional<AcceptanceGate> acceptance;
  // kExitRegression when a row fails or the gate says FAIL, kExitUnresolved when the gate
  // cannot decide, else kExitOk. passed(): kExitOk.
  int exit_status() const;
  bool passed() const;
  // "12 rows: 10 same, ... -> PASS" / "-> FAIL: below 95% ... at ..."; with a gate and no
  // failing row, the arrow gives the gate's verdict.
  std::string summary() const;
};

// Two figures, each with its noise half-width (same unit): same, ambiguous (the bands
// overlap), or faster / slower (they do not). `recommend` judges sweep points with it too.
Verdict judge(double new_value, double new_band, double ref_value, double ref_band);

// One compare row's verdict, every rule in order: the bands (judge), then a footprint
// difference (ambiguous unless the gap is beyond kFootprintEnvelope, or the figures
// agree), then a band wider than max_band_share of its figure (unresolved unless the
// figures are apart even so, or equal to the digits printed). `printed_resolution` is
// half the last printed digit of the coarser figure (0 for figures held in full): two
// figures closer than that are the same figure as printed, whatever their bands.
Verdict judge_row(double new_value, double new_band, double ref_value, double ref_band, bool footprint_differs,
                  double max_band_share, double printed_resolution = 0);

// What an unresolved row needs, for every printer's legend.
inline constexpr const char* kUnresolvedAdvice = "noise too large to judge: measure longer or raise --min-size";

// Throws UsageError (exit 2) when nothing is comparable: different rank counts (unless
// allowed) or no row keys in common at or above min_size; the message says what each
// side holds.
Comparison compare_sides(const Side& new_side, const Side& reference, const CompareOptions& options);

}  // namespace ncclsweep
