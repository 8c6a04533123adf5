#pragma once
// Whether two rows were measured with buffers that span the same memory and the same
// cache state, where that changes the number (docs/performance.md, "Buffer footprint").
// A verdict input of its own: compare_sides turns a mismatch into `ambiguous`.
#include <optional>
#include <string>

#include "compare/side.hpp"
#include "core/units.hpp"

namespace ncclsweep {

// Sizes up to this are judged only when both sides' footprints match. Measured on 2x H200
// (docs/performance.md): at 1-16 MiB one size's busbw moved by up to 35% with the
// footprint alone (16 MiB buffers against a ranged run's 64 MiB and 1 GiB), while at
// >= 64 MiB both footprints agreed within 0.1%: a call that large no longer fits the L2
// cache (50-60 MiB on Hopper) alongside NCCL's own buffers, so every footprint reads cold.
// 32 MiB, between the two, was not measured apart and is kept on the careful side.
inline constexpr Bytes kFootprintSensitiveBytes = Bytes{32} << 20;

// Empty when the rows are comparable in footprint and cache state, or when either side
// does not say (older files); else what differs, e.g. "buffer footprint 16 MiB vs 4 GiB".
std::optional<std::string> footprint_mismatch(const SideRow& new_row, const SideRow& reference_row);

// One line for the comparison's header when any row was made ambiguous by a mismatch:
// what each side used and the flag that makes NEW like REFERENCE.
std::string footprint_difference_line(const SideRow& new_row, const SideRow& reference_row, int rows);

}  // namespace ncclsweep
