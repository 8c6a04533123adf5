#pragma once
// Sub-communicators: the groups of ranks a collective runs on, all groups at once, as
// in training (DP groups strided across TP ranks, TP groups of adjacent ranks). Every
// group kind resolves to equal strided ranges, so one colour formula splits them all.
#include <string>

#include "core/errors.hpp"

namespace ncclsweep {

// Groups of `size` ranks spaced `stride` apart. size 0 (or the rank count) is the world.
struct CommSplit {
  std::string kind = "world";  // world | intra-node | inter-node | stride | size | dp | tp | cp | ep | pp | dp-cp | edp
  int size = 0;
  int stride = 1;
  bool is_world() const { return size == 0 || kind == "world"; }
  int ranks_in(int world) const { return is_world() ? world : size; }
  std::string label() const;  // "world", "dp 2 (stride 1)"
};

// The colour of `rank`'s group: equal for exactly the ranks of one group, in
// [0, world / size). Ranks rank = a + stride*k + stride*size*b (a < stride, k < size)
// share a and b.
int split_colour(const CommSplit& group, int rank);

// What a sweep file's `groups:` or `--groups` asks for, before the rank count is known.
struct CommSplitRequest {
  std::string kind;  // world | workload (each collective on its own kind) | intra-node | inter-node | stride | size | dp ...
  int value = 0;     // stride k, size n
  SourcePosition where;
};

// "intra-node", "inter-node", "stride:2", "size:4", "dp", "workload", "world".
// Throws UsageError naming the text and the accepted forms.
CommSplitRequest parse_comm_split_request(const std::string& text, SourcePosition where = {});

// Resolves a plain request (intra-node, inter-node, stride, size, world) for `ranks`
// ranks placed in blocks of `ranks_per_node` per node. Throws UsageError (with the
// request's position) when the groups do not divide the ranks evenly.
CommSplit resolve_plain_split(const CommSplitRequest& request, int ranks, int ranks_per_node);

// True for dp, tp, cp, ep, pp, dp-cp, edp: kinds only a workload's layout defines.
bool is_parallel_kind(const std::string& kind);

}  // namespace ncclsweep
