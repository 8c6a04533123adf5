#pragma once
// Whether two rows were measured with buffers that span the same memory and the same
// cache state, where that changes the number (docs/performance.md, "Buffer footprint"),
// and how far a footprint alone can move busbw: a verdict input of its own, which
// compare_sides weighs against the gap (docs/compare.md, "Verdicts").
#include <optional>
#include <string>

#include "compare/side.hpp"
#include "core/units.hpp"

namespace ncclsweep {

// Sizes up to this are judged only when both sides' footprints match. Measured on 2x H200
// (docs/performance.md): at 1-16 MiB one size's busbw moved by up to 54% with the
// footprint alone (16 MiB buffers against a ranged run's 64 MiB and 1 GiB), while at
// >= 64 MiB both footprints agreed within 0.1%: a call that large no longer fits the L2
// cache (50-60 MiB on Hopper) alongside NCCL's own buffers, so every footprint reads cold.
// 32 MiB, between the two, was not measured apart and is kept on the careful side.
inline constexpr Bytes kFootprintSensitiveBytes = Bytes{32} << 20;

// The most a footprint or cache difference can move one busbw figure, as a ratio. The
// largest measured was 1.54 (LL128 1 MiB, docs/performance.md); rounded up so a
// footprint effect is never judged a regression.
inline constexpr double kFootprintEnvelope = 1.6;

// Empty when the rows are comparable in footprint and cache state, or when either side
// does not say (older files); else what differs, e.g. "buffer footprint 16 MiB vs 4 GiB".
std::optional<std::string> footprint_mismatch(const SideRow& new_row, const SideRow& reference_row);

// Whether the two figures, each widened by its noise band, are still further apart
// than kFootprintEnvelope: a gap no footprint difference explains.
bool beyond_footprint_envelope(double new_value, double new_band, double ref_value, double ref_band);

// How many rows a footprint difference touched, by what compare made of them.
struct FootprintRows {
  int ambiguous = 0;  // the gap fits inside the envelope: not judged
  int judged = 0;     // beyond the envelope (slower / faster) or agreeing (same)
};

// One line for the comparison's header when rows' footprints differed: what each side
// used, what became of those rows, and how to rerun like for like in the words of the
// tool that made each side (nccl-tests' -b/-e, ncclsweep's --buffer-footprint / --cache).
std::string footprint_difference_line(const SideRow& new_row, const SideIdentity& new_side, const SideRow& reference_row,
                                      const SideIdentity& reference, const FootprintRows& rows);

}  // namespace ncclsweep
