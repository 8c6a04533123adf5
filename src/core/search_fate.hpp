#pragma once
// Where a search's candidate ended in one size band: the search decides it, search.json
// names it (docs/search.md), so the value and its one name sit below both.
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

enum class FateState { not_measured, alive, dropped, tied, leader };
inline constexpr NameTable<FateState, 5> kFateStateNames{
    "search fate",
    {{{FateState::not_measured, "not-measured"},
      {FateState::alive, "alive"},
      {FateState::dropped, "dropped"},
      {FateState::tied, "tied"},
      {FateState::leader, "leader"}}}};
constexpr std::string_view name_of(FateState state) { return kFateStateNames.name(state); }

}  // namespace ncclsweep
