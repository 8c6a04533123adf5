#pragma once
// A training job's parallel layout (tp, cp, ep, dp, pp, vp) and the communicator
// groups it implies. Ranks are numbered in mixed radix over the layout's order,
// innermost dimension first (Megatron-Core's default order "tp-cp-ep-dp-pp").
#include <optional>
#include <string>
#include <vector>

#include "core/communicator_kind.hpp"
#include "core/name_table.hpp"

namespace ncclsweep {

// The kinds of group a training job communicates over. dp_cp is Megatron's
// data-parallel group that includes the context-parallel ranks; edp is the expert
// data-parallel group (the ranks holding the same experts).
enum class ParallelKind { tp, cp, ep, dp, pp, dp_cp, edp, unknown };
std::string name_of(ParallelKind kind);  // "tp", ..., "dp-cp", "edp", "?"

// The same groups as communicator kinds (core/communicator_kind.hpp), which name them in
// sweep files and records: dp <-> CommunicatorKind::dp, ...; unknown has none.
std::optional<CommunicatorKind> communicator_kind_of(ParallelKind kind);
// ParallelKind::unknown for a kind that is no parallel group (world, intra-node, ...).
ParallelKind parallel_kind_of(CommunicatorKind kind);

// One communicator group: its members are `size` ranks spaced `stride` apart, starting
// at the rank whose own coordinate in the group is 0. Every group of a layout is such
// a strided range, so ncclCommSplit can take color_of() as its colour.
struct ParallelGroup {
  ParallelKind kind = ParallelKind::unknown;
  int size = 1;
  int stride = 1;
};

// The most ranks a layout, or any one of its sizes, may have: as `plan --ranks`.
inline constexpr int kMaxLayoutRanks = 1 << 20;

struct Layout {
  int tp = 1, cp = 1, ep = 1, dp = 1, pp = 1, vp = 1;
  // Innermost first; a permutation of tp cp ep dp pp (ep may be left out).
  std::vector<std::string> order = {"tp", "cp", "ep", "dp", "pp"};
  int world() const { return tp * cp * dp * pp; }
};

// Parses "tp-cp-ep-dp-pp"; throws UsageError naming the bad part.
std::vector<std::string> parse_layout_order(const std::string& text);
std::string format_layout_order(const std::vector<std::string>& order);

// Checks sizes >= 1, at most kMaxLayoutRanks ranks in all, ep dividing cp*dp, and (when world > 0) that the product is the
// rank count. Throws UsageError with `where` (a file or "command line") in the text.
void validate_layout(const Layout& layout, int world, const std::string& where);

// The group of `kind` in `layout`. Dense groups (tp, cp, dp, pp, dp-cp) follow the order
// without ep; expert groups (ep, edp) follow Megatron's expert order: cp dropped, tp
// kept, then ep and edp = cp*dp/ep in the places of ep and dp. Throws UsageError when
// the order makes the group not a strided range (dp-cp with cp and dp apart).
ParallelGroup group_of(ParallelKind kind, const Layout& layout);

// Where a layout's groups of one kind run when ranks fill nodes of `ranks_per_node` in
// rank order (as mpirun and srun place them by default): every group inside one node
// (NVLink, PCIe), every group across nodes (the network), or some of each. The names are
// those of the communicator kinds that split a run so (core/communicator_kind.hpp).
enum class NodeSpan { intra_node, inter_node, mixed };
inline constexpr NameTable<NodeSpan, 3> kNodeSpanNames{
    "node span",
    {{{NodeSpan::intra_node, name_of(CommunicatorKind::intra_node)},
      {NodeSpan::inter_node, name_of(CommunicatorKind::inter_node)},
      {NodeSpan::mixed, "mixed"}}}};

// The span of `group`'s groups (each the strided range color_of() names) over a world of
// `world` ranks. Throws UsageError when ranks_per_node is below 1 or the group has no rank
// layout (stride 0: imported sizes name only the group size).
NodeSpan node_span(const ParallelGroup& group, int world, int ranks_per_node);

// The colour of world_rank's group of `group`: equal for exactly the ranks of one group,
// in [0, world / group.size).
int color_of(const ParallelGroup& group, const Layout& layout, int world_rank);

}  // namespace ncclsweep
