#pragma once
// Sub-communicators: the groups of ranks a collective runs on, all groups at once, as
// in training (DP groups strided across TP ranks, TP groups of adjacent ranks). Every
// group kind resolves to equal strided ranges, so one colour formula splits them all.
#include <string>

#include "core/communicator_kind.hpp"
#include "core/errors.hpp"

namespace ncclsweep {

// Groups of `size` ranks spaced `stride` apart. size 0 (or the rank count) is the world.
struct CommSplit {
  CommunicatorKind kind = CommunicatorKind::world;
  int size = 0;
  int stride = 1;
  bool is_world() const { return size == 0 || kind == CommunicatorKind::world; }
  int ranks_in(int world) const { return is_world() ? world : size; }
  std::string label() const;  // "world", "dp 2 (stride 1)"
};

// The colour of `rank`'s group: equal for exactly the ranks of one group, in
// [0, world / size). Ranks rank = a + stride*k + stride*size*b (a < stride, k < size)
// share a and b.
int split_colour(const CommSplit& group, int rank);

// What a sweep file's `groups:` or `--groups` asks for, before the rank count is known.
struct CommSplitRequest {
  bool workload = false;  // "workload": each collective on its own workload group (kind unused)
  CommunicatorKind kind = CommunicatorKind::world;
  int value = 0;  // stride k, size n
  SourcePosition where;
  std::string text() const;  // as written: "workload", "stride:2", "dp"
};

// "intra-node", "inter-node", "stride:2", "size:4", "dp", "workload", "world".
// Throws UsageError naming the text and the accepted forms.
CommSplitRequest parse_comm_split_request(const std::string& text, SourcePosition where = {});

// Resolves a plain request (intra-node, inter-node, stride, size, world) for `ranks`
// ranks placed in blocks of `ranks_per_node` per node. Throws UsageError (with the
// request's position) when the groups do not divide the ranks evenly.
CommSplit resolve_plain_split(const CommSplitRequest& request, int ranks, int ranks_per_node);

// A workload's groups: "workload" or a parallel kind, which only a workload's layout defines.
inline bool needs_workload(const CommSplitRequest& request) { return request.workload || is_parallel(request.kind); }

}  // namespace ncclsweep
