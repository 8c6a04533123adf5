#pragma once
// Which part of locate's schedule a measurement belongs to (docs/locate.md): held by the
// schedule, the verdicts and the records (results/record.hpp, LocatePlace).
#include "core/name_table.hpp"

namespace ncclsweep {

// host: each host alone (gpus: its GPUs in rings, part of the host phase); pairs: two
// hosts at a time; rails: the same local GPU of two hosts.
enum class LocatePhase { host, gpus, pairs, rails };
inline constexpr NameTable<LocatePhase, 4> kLocatePhaseNames{"locate phase",
                                                             {{{LocatePhase::host, "host"},
                                                               {LocatePhase::gpus, "gpus"},
                                                               {LocatePhase::pairs, "pairs"},
                                                               {LocatePhase::rails, "rails"}}}};
constexpr std::string_view name_of(LocatePhase phase) { return kLocatePhaseNames.name(phase); }

}  // namespace ncclsweep
