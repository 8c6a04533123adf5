#pragma once
// One `ncclsweep compare NEW REFERENCE`: two sweep results (ours or nccl-tests') judged
// row by row, or two probe runs judged per host and figure; printed in the chosen format.
#include <iosfwd>
#include <string>

#include "compare/comparison.hpp"
#include "inspect/output_target.hpp"

namespace ncclsweep {

struct CompareFlags {
  std::string new_input, reference_input;
  double threshold = kDefaultThreshold;
  bool allow_rank_mismatch = false;
  NoiseModel noise;
  std::string min_size = "0";
  double max_band_share = kDefaultMaxBandShare;
  OutputTarget output;
  bool to_terminal = false;  // `out` is a terminal (colour)
};

// Prints to `out` (and, with -o, the one-line summary there); returns kExitOk,
// kExitRegression when a row fails. Throws UsageError for bad input, before any output.
int run_compare_command(const CompareFlags& flags, std::ostream& out);

}  // namespace ncclsweep
