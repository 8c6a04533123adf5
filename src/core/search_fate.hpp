#pragma once
// Where a search's candidate ended in one size band: the search decides it, search.json
// names it (docs/search.md), so the value and its one name sit below both.
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

// failed: its point could not be measured (a setting NCCL refused, a worker that died),
// so the search left it out.
enum class FateState { not_measured, alive, dropped, tied, leader, failed };
inline constexpr NameTable<FateState, 6> kFateStateNames{
    "search fate",
    {{{FateState::not_measured, "not-measured"},
      {FateState::alive, "alive"},
      {FateState::dropped, "dropped"},
      {FateState::tied, "tied"},
      {FateState::leader, "leader"},
      {FateState::failed, "failed"}}}};
constexpr std::string_view name_of(FateState state) { return kFateStateNames.name(state); }

}  // namespace ncclsweep
