#include "spec/comm_split.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "core/checked_number.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {
namespace {

const char* kGroupForms =
    "groups is world, workload (each collective on its workload group), intra-node, inter-node, stride:K, size:N, "
    "or a workload group dp, tp, cp, ep, pp, dp-cp, edp";

int parse_positive(const std::string& text, const std::string& whole, const SourcePosition& where) {
  const auto value = parse_integer_text(text);
  if (!value || *value < 1 || *value > (1 << 24)) {
    throw UsageError("groups '" + whole + "' needs a positive integer after the colon", kGroupForms, where);
  }
  return static_cast<int>(*value);
}

}  // namespace

std::string CommSplit::label() const {
  if (is_world()) return "world";
  return std::string(name_of(kind)) + " " + std::to_string(size) + " (stride " + std::to_string(stride) + ")";
}

std::string CommSplitRequest::text() const {
  if (workload) return "workload";
  return std::string(name_of(kind)) + (value ? ":" + std::to_string(value) : "");
}

int split_colour(const CommSplit& group, int rank) {
  if (group.is_world()) return 0;
  const int stride = std::max(group.stride, 1);
  return rank % stride + rank / (stride * group.size) * stride;
}

CommSplitRequest parse_comm_split_request(const std::string& text, SourcePosition where) {
  CommSplitRequest request;
  request.where = where;
  const auto colon = text.find_first_of(":=");
  const std::string head = text.substr(0, colon);
  if (colon != std::string::npos && (head == "stride" || head == "size")) {
    request.kind = kCommunicatorKindNames.parse(head);
    request.value = parse_positive(text.substr(colon + 1), text, where);
    return request;
  }
  if (colon == std::string::npos && text == "workload") {
    request.workload = true;
    return request;
  }
  const auto kind = kCommunicatorKindNames.find(text);
  if (colon == std::string::npos && kind && *kind != CommunicatorKind::stride && *kind != CommunicatorKind::size) {
    request.kind = *kind;
    return request;
  }
  std::vector<std::string> names{"world", "workload", "intra-node", "inter-node", "stride:", "size:"};
  for (const auto& [value, name] : kCommunicatorKindNames.entries()) {
    if (is_parallel(value)) names.emplace_back(name);
  }
  throw UsageError("unknown groups '" + text + "'" + did_you_mean(head, names), kGroupForms, where);
}

CommSplit resolve_plain_split(const CommSplitRequest& request, int ranks, int ranks_per_node) {
  const auto refuse = [&](const std::string& what, const std::string& fix) -> CommSplit {
    throw UsageError("groups " + request.text() + ": " + what, fix, request.where);
  };
  CommSplit group;
  group.kind = request.kind;
  if (request.workload || is_parallel(request.kind)) {
    return refuse("needs the layout of a workload", "take sizes from a workload (sizes: {workload: FILE})");
  }
  if (request.kind == CommunicatorKind::world) return CommSplit{};
  if (request.kind == CommunicatorKind::stride) {
    // Ranks r, r+k, r+2k, ...: k groups of ranks/k.
    if (ranks % request.value != 0 || request.value >= ranks) {
      return refuse(std::to_string(ranks) + " ranks do not split into groups strided " + std::to_string(request.value),
                    "choose a stride that divides the rank count and is smaller than it");
    }
    group.size = ranks / request.value;
    group.stride = request.value;
  } else if (request.kind == CommunicatorKind::size) {
    if (ranks % request.value != 0 || request.value < 2) {
      return refuse(std::to_string(ranks) + " ranks do not split into blocks of " + std::to_string(request.value),
                    "choose a size of at least 2 that divides the rank count");
    }
    group.size = request.value;
  } else {  // intra-node or inter-node
    if (ranks_per_node < 1 || ranks % ranks_per_node != 0) {
      // Unequal counts and a round-robin placement (rank r on node r % nodes) both end
      // here: the groups are blocks of consecutive ranks, one block per node.
      return refuse("ranks are not placed in equal blocks per node (each node's ranks consecutive, rank r on local rank r % N)",
                    "launch the same number of ranks on every node, placed by slot: mpirun --map-by slot or ppr:N:node "
                    "(not --map-by node), srun --distribution=block");
    }
    const int nodes = ranks / ranks_per_node;
    const bool intra = request.kind == CommunicatorKind::intra_node;
    if ((intra ? ranks_per_node : nodes) < 2) {
      return refuse(std::string("each group would hold one rank (") + std::to_string(nodes) + " node(s) of " +
                        std::to_string(ranks_per_node) + " ranks)",
                    intra ? "run several ranks per node" : "run on several nodes");
    }
    group.size = intra ? ranks_per_node : nodes;
    group.stride = intra ? 1 : ranks_per_node;
  }
  if (group.size == ranks) return CommSplit{};
  return group;
}

}  // namespace ncclsweep
