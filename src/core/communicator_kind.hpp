#pragma once
// What a measurement's communicator is (docs/groups.md): the world, or sub-communicators
// that all run at once, of one kind: a plain split of the ranks, or one of a training
// layout's parallel groups.
#include <optional>
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

enum class CommunicatorKind { world, intra_node, inter_node, stride, size, dp, tp, cp, ep, pp, dp_cp, edp };
inline constexpr NameTable<CommunicatorKind, 12> kCommunicatorKindNames{
    "communicator kind",
    {{{CommunicatorKind::world, "world"},
      {CommunicatorKind::intra_node, "intra-node"},
      {CommunicatorKind::inter_node, "inter-node"},
      {CommunicatorKind::stride, "stride"},
      {CommunicatorKind::size, "size"},
      {CommunicatorKind::dp, "dp"},
      {CommunicatorKind::tp, "tp"},
      {CommunicatorKind::cp, "cp"},
      {CommunicatorKind::ep, "ep"},
      {CommunicatorKind::pp, "pp"},
      {CommunicatorKind::dp_cp, "dp-cp"},
      {CommunicatorKind::edp, "edp"}}}};
constexpr std::string_view name_of(CommunicatorKind kind) { return kCommunicatorKindNames.name(kind); }

// dp, tp, cp, ep, pp, dp-cp, edp: the kinds only a workload's layout defines.
constexpr bool is_parallel(CommunicatorKind kind) { return kind >= CommunicatorKind::dp; }

}  // namespace ncclsweep
