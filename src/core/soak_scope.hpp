#pragma once
// Which communicator a soak figure was measured on (docs/soak.md): held by the soak's
// schedule, its verdicts and the records (results/record.hpp, SoakPlace).
#include "core/name_table.hpp"

namespace ncclsweep {

// world: every rank; host: one host's ranks alone; pair: the ranks of two hosts together
// (the pair tests that trace a world drift, soak/soak_runner.hpp).
enum class SoakScope { world, host, pair };
inline constexpr NameTable<SoakScope, 3> kSoakScopeNames{
    "soak scope", {{{SoakScope::world, "world"}, {SoakScope::host, "host"}, {SoakScope::pair, "pair"}}}};
constexpr std::string_view name_of(SoakScope scope) { return kSoakScopeNames.name(scope); }

}  // namespace ncclsweep
