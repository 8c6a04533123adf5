#include "results/node_map.hpp"

#include <algorithm>

#include "core/finding.hpp"

namespace ncclsweep {
namespace {

void add_distinct(std::vector<std::string>& values, const std::string& value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

}  // namespace

std::vector<NodeSummary> node_summaries(const std::vector<RankEntry>& ranks) {
  std::vector<NodeSummary> nodes;
  for (const RankEntry& r : ranks) {
    auto node = std::find_if(nodes.begin(), nodes.end(), [&](const NodeSummary& n) { return n.host == r.host; });
    if (node == nodes.end()) {
      nodes.push_back(NodeSummary{r.host, {}, {}, {}});
      node = nodes.end() - 1;
    }
    node->ranks.push_back(r.rank);
    if (r.gpu_index >= 0) add_distinct(node->gpus, r.pci_bus_id);
    const auto visible = r.environment.find("CUDA_VISIBLE_DEVICES");
    add_distinct(node->visible_devices, visible == r.environment.end() ? "unset" : visible->second);
  }
  for (auto& n : nodes) std::sort(n.ranks.begin(), n.ranks.end());
  return nodes;
}

std::string node_summary_line(const NodeSummary& node) {
  std::string line = node.host + ": ranks " + doctor::compact_ranks(node.ranks) + " (" +
                     std::to_string(node.ranks.size()) + "), ";
  line += node.gpus.empty() ? "no GPU" : std::to_string(node.gpus.size()) + " GPU(s)";
  line += ", CUDA_VISIBLE_DEVICES ";
  constexpr std::size_t kShown = 4;  // a few values say the pattern; the count says the rest
  for (std::size_t i = 0; i < node.visible_devices.size() && i < kShown; ++i) {
    line += (i ? " | " : "") + node.visible_devices[i];
  }
  if (node.visible_devices.size() > kShown) {
    line += " | ... (" + std::to_string(node.visible_devices.size()) + " values)";
  }
  return line;
}

}  // namespace ncclsweep
