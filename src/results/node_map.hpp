#pragma once
// The run's ranks grouped by host: which ranks, GPUs and CUDA_VISIBLE_DEVICES each node
// had. One line per node keeps a 512-rank run's header readable (run.json keeps every rank).
#include <string>
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

struct NodeSummary {
  std::string host;
  std::vector<int> ranks;                    // rank order
  std::vector<std::string> gpus;             // distinct PCI bus ids, first seen first; empty without GPUs
  std::vector<std::string> visible_devices;  // distinct CUDA_VISIBLE_DEVICES values ("unset" when absent)
};

// Hosts in order of first appearance.
std::vector<NodeSummary> node_summaries(const std::vector<RankEntry>& ranks);

// "node7: ranks 8-15 (8), 8 GPU(s), CUDA_VISIBLE_DEVICES 0 | 1 | ... (8 values)"
std::string node_summary_line(const NodeSummary& node);

}  // namespace ncclsweep
