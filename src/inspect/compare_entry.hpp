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
  double target = kDefaultTarget;  // the acceptance gate's bar; 0: no gate
  OutputTarget output;
  bool to_terminal = false;  // `out` is a terminal (colour)
};

// Prints to `out` (and, with -o, the one-line summary and the gate's line there); returns
// kExitOk, kExitRegression when a row or the acceptance gate fails, kExitUnresolved when
// the gate cannot decide. Throws UsageError for bad input, before any output.
int run_compare_command(const CompareFlags& flags, std::ostream& out);

}  // namespace ncclsweep
