#pragma once
// The named choices of a locate schedule and its verdicts (docs/locate.md): held as enums
// from the schedule to the verdicts, named only in locate's files and text.
#include "core/locate_phase.hpp"
#include "core/name_table.hpp"

namespace ncclsweep::locate {

using ncclsweep::kLocatePhaseNames;
using ncclsweep::LocatePhase;
using ncclsweep::name_of;

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
