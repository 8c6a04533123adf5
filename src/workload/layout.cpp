#include "workload/layout.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <sstream>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

const std::vector<std::string> kDimensions = {"tp", "cp", "ep", "dp", "pp"};

struct Dimension {
  std::string name;
  int size;
};

std::vector<Dimension> dense_dimensions(const Layout& l) {
  std::vector<Dimension> dims;
  for (const auto& name : l.order) {
    if (name == "tp") dims.push_back({name, l.tp});
    if (name == "cp") dims.push_back({name, l.cp});
    if (name == "dp") dims.push_back({name, l.dp});
    if (name == "pp") dims.push_back({name, l.pp});
  }
  return dims;
}

// Megatron's expert rank generator: same order, cp folded into the data-parallel pool
// which ep splits; ep sits where the order puts it (default: right after tp).
std::vector<Dimension> expert_dimensions(const Layout& l) {
  std::vector<Dimension> dims;
  auto order = l.order;
  if (std::find(order.begin(), order.end(), "ep") == order.end()) {
    order.insert(std::find(order.begin(), order.end(), "dp"), "ep");
  }
  for (const auto& name : order) {
    if (name == "tp") dims.push_back({name, l.tp});
    if (name == "ep") dims.push_back({name, l.ep});
    if (name == "dp") dims.push_back({"edp", l.cp * l.dp / l.ep});
    if (name == "pp") dims.push_back({name, l.pp});
  }
  return dims;
}

// Stride and size of the group spanning the named adjacent dimensions.
ParallelGroup span(ParallelKind kind, const std::vector<Dimension>& dims, const std::vector<std::string>& names) {
  int stride = 1;
  std::size_t first = 0;
  while (first < dims.size() && std::find(names.begin(), names.end(), dims[first].name) == names.end()) {
    stride *= dims[first].size;
    ++first;
  }
  int size = 1;
  for (std::size_t i = first; i < dims.size() && i < first + names.size(); ++i) {
    if (std::find(names.begin(), names.end(), dims[i].name) == names.end()) {
      throw UsageError("the layout order puts " + dims[i].name + " between the dimensions of the " +
                           name_of(kind) + " group, so that group is not a strided range of ranks",
                       "use an order in which cp and dp are next to each other, e.g. tp-cp-ep-dp-pp");
    }
    size *= dims[i].size;
  }
  return {kind, size, stride};
}

}  // namespace

namespace {

constexpr std::pair<ParallelKind, CommunicatorKind> kGroupKinds[] = {
    {ParallelKind::tp, CommunicatorKind::tp}, {ParallelKind::cp, CommunicatorKind::cp},
    {ParallelKind::ep, CommunicatorKind::ep}, {ParallelKind::dp, CommunicatorKind::dp},
    {ParallelKind::pp, CommunicatorKind::pp}, {ParallelKind::dp_cp, CommunicatorKind::dp_cp},
    {ParallelKind::edp, CommunicatorKind::edp}};

}  // namespace

std::optional<CommunicatorKind> communicator_kind_of(ParallelKind kind) {
  for (const auto& [parallel, communicator] : kGroupKinds) {
    if (parallel == kind) return communicator;
  }
  return std::nullopt;
}

ParallelKind parallel_kind_of(CommunicatorKind kind) {
  for (const auto& [parallel, communicator] : kGroupKinds) {
    if (communicator == kind) return parallel;
  }
  return ParallelKind::unknown;
}

std::string name_of(ParallelKind kind) {
  switch (kind) {
    case ParallelKind::tp: return "tp";
    case ParallelKind::cp: return "cp";
    case ParallelKind::ep: return "ep";
    case ParallelKind::dp: return "dp";
    case ParallelKind::pp: return "pp";
    case ParallelKind::dp_cp: return "dp-cp";
    case ParallelKind::edp: return "edp";
    case ParallelKind::unknown: break;
  }
  return "?";
}

std::vector<std::string> parse_layout_order(const std::string& text) {
  std::vector<std::string> order;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, '-');) {
    if (std::find(kDimensions.begin(), kDimensions.end(), part) == kDimensions.end()) {
      throw UsageError("layout order '" + text + "' has an unknown dimension '" + part + "'",
                       "use tp, cp, ep, dp and pp joined by '-', e.g. tp-cp-ep-dp-pp");
    }
    if (std::find(order.begin(), order.end(), part) != order.end()) {
      throw UsageError("layout order '" + text + "' names " + part + " twice", "name each dimension once");
    }
    order.push_back(part);
  }
  for (const char* needed : {"tp", "cp", "dp", "pp"}) {
    if (std::find(order.begin(), order.end(), needed) == order.end()) {
      throw UsageError("layout order '" + text + "' lacks " + needed, "name tp, cp, dp and pp (and ep), e.g. tp-cp-ep-dp-pp");
    }
  }
  return order;
}

std::string format_layout_order(const std::vector<std::string>& order) {
  std::string s;
  for (const auto& part : order) s += (s.empty() ? "" : "-") + part;
  return s;
}

void validate_layout(const Layout& l, int world, const std::string& where) {
  const std::pair<const char*, int> sizes[] = {{"tp", l.tp}, {"cp", l.cp}, {"ep", l.ep}, {"dp", l.dp}, {"pp", l.pp}, {"vp", l.vp}};
  for (const auto& [name, value] : sizes) {
    if (value < 1) {
      throw UsageError(where + ": " + name + " = " + std::to_string(value) + " must be at least 1",
                       std::string("give ") + name + " a whole number of at least 1 (1: no " + name + " parallelism)");
    }
  }
  // In 64 bits: world() would overflow an int first.
  const std::int64_t ranks = std::int64_t{l.tp} * l.cp * l.dp * l.pp;
  if (ranks > kMaxLayoutRanks) {
    throw UsageError(where + ": tp*cp*dp*pp = " + std::to_string(ranks) + " ranks is more than " +
                         std::to_string(kMaxLayoutRanks),
                     "give the layout of a job of at most " + std::to_string(kMaxLayoutRanks) + " ranks");
  }
  if ((l.cp * l.dp) % l.ep != 0) {
    throw UsageError(where + ": ep " + std::to_string(l.ep) + " does not divide cp*dp = " + std::to_string(l.cp * l.dp),
                     "experts are spread over the data-parallel ranks (with cp): pick ep dividing cp*dp");
  }
  if (world > 0 && l.world() != world) {
    throw UsageError(where + ": tp*cp*dp*pp = " + std::to_string(l.tp) + "*" + std::to_string(l.cp) + "*" +
                         std::to_string(l.dp) + "*" + std::to_string(l.pp) + " = " + std::to_string(l.world()) +
                         " is not the rank count " + std::to_string(world),
                     "make the product of the layout's sizes equal the number of GPUs");
  }
}

ParallelGroup group_of(ParallelKind kind, const Layout& l) {
  switch (kind) {
    case ParallelKind::tp: return span(kind, dense_dimensions(l), {"tp"});
    case ParallelKind::cp: return span(kind, dense_dimensions(l), {"cp"});
    case ParallelKind::dp: return span(kind, dense_dimensions(l), {"dp"});
    case ParallelKind::pp: return span(kind, dense_dimensions(l), {"pp"});
    case ParallelKind::dp_cp: return span(kind, dense_dimensions(l), {"cp", "dp"});
    case ParallelKind::ep: return span(kind, expert_dimensions(l), {"ep"});
    case ParallelKind::edp: return span(kind, expert_dimensions(l), {"edp"});
    case ParallelKind::unknown: break;
  }
  throw UsageError("no group of unknown kind");
}

int color_of(const ParallelGroup& group, const Layout& layout, int world_rank) {
  // The group's stride and size already encode where it sits in the layout.
  if (group.stride < 1 || group.size < 1) {
    throw UsageError("the " + name_of(group.kind) + " group has no rank layout (imported sizes name only the group size)",
                     "derive the workload from a model and layout to get its groups");
  }
  if (world_rank < 0 || world_rank >= layout.world()) {
    throw UsageError("rank " + std::to_string(world_rank) + " is outside the layout's " +
                     std::to_string(layout.world()) + " ranks");
  }
  const int block = group.stride * group.size;
  return world_rank % group.stride + (world_rank / block) * group.stride;
}

NodeSpan node_span(const ParallelGroup& group, int world_ranks, int ranks_per_node) {
  if (ranks_per_node < 1) {
    throw UsageError("gpus_per_node " + std::to_string(ranks_per_node) + " must be at least 1",
                     "give the GPUs (ranks) of one node, e.g. --gpus-per-node 8");
  }
  if (group.stride < 1 || group.size < 1) {
    throw UsageError("the " + name_of(group.kind) + " group has no rank layout (imported sizes name only the group size)",
                     "derive the workload from a model and layout to see which groups cross nodes");
  }
  // Each group is {base + k*stride, k < size}, its members ascending: it stays in one node
  // exactly when its first and last member do. Groups repeat every stride*size ranks.
  const long long world = world_ranks, stride = group.stride, size = group.size, block = stride * size;
  bool inside = false, across = false;
  for (long long start = 0; start + block <= world && !(inside && across); start += block) {
    for (long long offset = 0; offset < stride && !(inside && across); ++offset) {
      const long long first = start + offset, last = first + (size - 1) * stride;
      (first / ranks_per_node == last / ranks_per_node ? inside : across) = true;
    }
  }
  if (inside && across) return NodeSpan::mixed;
  return across ? NodeSpan::inter_node : NodeSpan::intra_node;
}

}  // namespace ncclsweep
