#pragma once
// Nodes measured two at a time (hosts in the pairs and rails phases, the GPUs of one host
// in the gpus steps): which nodes are slow, and which pairs are slow beyond their nodes
// (pure). A pair runs at the pace of its slower node, times what its own path costs:
//
//     pair share = min(its nodes' shares) x its link's share
//
// so a node's share is what it reaches with its better partners, the upper quartile of its
// pairs (one slow partner or one slow link lowers one of them only): a node is low only
// when (nearly) all of its pairs are. A pair low beyond what its slow nodes explain is its
// link. The healthy level is the median over nodes of the upper median of each node's
// pairs, so neither a slow node (one pair of each other row) nor a slow link moves it.
// Where half the nodes or more are slow that median is theirs, and pairs read above it
// beyond the threshold: a fault only slows, so the level those pairs reach is the healthy
// one, unless most nodes fall below it (then a few pairs are faster by their place in the
// fabric, and the median stays).
// Every share is judged against its noise (noise.hpp): the spread of the healthy pairs
// around the level (pooled over tests), the repeats' own error, the reference's band.
#include <map>
#include <string>
#include <vector>

#include "locate/noise.hpp"
#include "locate/tournament.hpp"

namespace ncclsweep::locate {

// fine: at or above the threshold. slow: below it beyond noise. unresolved: below it, but
// within what noise explains.
enum class Judged { fine, slow, unresolved };

// A reference level given from outside (--reference): the log of its busbw and its
// relative noise width.
struct GivenLevel {
  double level = 0;
  double width = 0;
};

struct PairGraphInput {
  int nodes = 0;
  std::map<std::string, std::map<HostPair, LogFigure>> tests;  // per test, per measured pair
  std::map<std::string, GivenLevel> given;  // per test; empty: this run's own healthy level
  double threshold = 0.9;
  NoiseWidth pooled_error;  // the phase's repeat noise (PhaseFigures::pooled_error)
};

struct NodeVerdict {
  double share = 1;  // of the reference: what it reaches with its better partners
  int partners = 0;  // judged only with two or more
  double noise = 0;   // the noise width its share is judged against (log)
  double widths = 3;  // how many of them below the reference it must sit (significance_widths)
  Judged state = Judged::fine;
};

struct PairVerdict {
  double share = 1;   // its own share of the reference, over its tests (more than half at or below)
  double beyond = 1;  // its share beyond what its slow nodes explain: its link's
  double noise = 0;
  double widths = 3;
  Judged state = Judged::fine;  // of its link
};

struct PairGraphVerdicts {
  std::map<std::string, double> level_gbps;                       // per test: what shares are of
  std::map<std::string, std::map<HostPair, double>> test_shares;  // per test, per pair
  std::vector<NodeVerdict> nodes;
  std::map<HostPair, PairVerdict> pairs;
  // The phase's typical noise width (log) and significance widths, of a pair and of a node.
  double pair_noise = 0, pair_widths = 3;
  double node_noise = 0, node_widths = 3;
  // The widths if the peers' spread were the widest noise (as in a longer run it becomes).
  double pair_peer_widths = 3, node_peer_widths = 3;
};

PairGraphVerdicts judge_pair_graph(const PairGraphInput& input);

}  // namespace ncclsweep::locate
