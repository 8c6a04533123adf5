#pragma once
// The named choices of a locate schedule and its verdicts (docs/locate.md): held as enums
// from the schedule to the verdicts, named only in locate's files and text.
#include "core/name_table.hpp"

namespace ncclsweep::locate {

// host: each host alone (gpus: its GPUs in rings, part of the host phase); pairs: two
// hosts at a time; rails: the same local GPU of two hosts.
enum class LocatePhase { host, gpus, pairs, rails };
inline constexpr NameTable<LocatePhase, 4> kLocatePhaseNames{"locate phase",
                                                             {{{LocatePhase::host, "host"},
                                                               {LocatePhase::gpus, "gpus"},
                                                               {LocatePhase::pairs, "pairs"},
                                                               {LocatePhase::rails, "rails"}}}};
constexpr std::string_view name_of(LocatePhase phase) { return kLocatePhaseNames.name(phase); }

// Which pairs of hosts the pairs phase measures: all of them (H-1 rounds of the round
// robin), or each host with its two neighbours (two rounds, three when odd).
enum class PairSchedule { all, ring };
inline constexpr NameTable<PairSchedule, 2> kPairScheduleNames{
    "pair schedule", {{{PairSchedule::all, "all"}, {PairSchedule::ring, "ring"}}}};
constexpr std::string_view name_of(PairSchedule schedule) { return kPairScheduleNames.name(schedule); }

// What a finding names, in the order findings are listed.
enum class FindingKind { host, nic, link, rail, gpu, gpu_link };
inline constexpr NameTable<FindingKind, 6> kFindingKindNames{"finding kind",
                                                             {{{FindingKind::host, "host"},
                                                               {FindingKind::nic, "nic"},
                                                               {FindingKind::link, "link"},
                                                               {FindingKind::rail, "rail"},
                                                               {FindingKind::gpu, "gpu"},
                                                               {FindingKind::gpu_link, "gpu-link"}}}};
constexpr std::string_view name_of(FindingKind kind) { return kFindingKindNames.name(kind); }

}  // namespace ncclsweep::locate
