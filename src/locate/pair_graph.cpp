#include "locate/pair_graph.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/iteration_stats.hpp"

namespace ncclsweep::locate {
namespace {

// The upper quartile of n values drawn around one level scatters about 1.36 / sqrt(n)
// of one value's noise (the asymptotic error of a 75% quantile); no less than a single
// pair's noise for a node of up to two partners, whose quartile is its better pair.
double quartile_noise_factor(int partners) {
  return std::min(1.0, 1.36 / std::sqrt(static_cast<double>(std::max(partners, 1))));
}

Judged judged(double share_log, double noise, double widths, double threshold) {
  if (share_log >= std::log(threshold)) return Judged::fine;
  return share_log < -widths * noise ? Judged::slow : Judged::unresolved;
}

// Per test, each pair's level over the test's centre (the given reference, or the median
// of `level_pairs`, all pairs when empty), so tests of different busbw can be taken
// together.
struct PairLevels {
  std::map<std::string, double> centre;
  std::map<HostPair, std::vector<double>> over_tests, errors;
  double given_width = 0;
};

PairLevels pair_levels(const PairGraphInput& input, const std::set<HostPair>& level_pairs = {}) {
  PairLevels out;
  const bool given = !input.given.empty();
  std::vector<double> given_widths;
  for (const auto& [test, pairs] : input.tests) {
    std::vector<double> levels;
    for (const auto& [pair, figure] : pairs) {
      if (level_pairs.empty() || level_pairs.count(pair) != 0) levels.push_back(figure.level);
    }
    if (levels.empty()) {
      for (const auto& [pair, figure] : pairs) levels.push_back(figure.level);
    }
    if (levels.empty()) continue;
    const auto g = input.given.find(test);
    out.centre[test] = given && g != input.given.end() ? g->second.level : median_of(levels);
    if (given && g != input.given.end()) given_widths.push_back(g->second.width);
    for (const auto& [pair, figure] : pairs) {
      out.over_tests[pair].push_back(figure.level - out.centre[test]);
      out.errors[pair].push_back(figure.error);
    }
  }
  out.given_width = given_widths.empty() ? 0 : median_of(given_widths);
  return out;
}

// A pair is low only when most of its tests are: one test upset while it ran names nothing.
std::map<HostPair, double> pair_level(const PairLevels& p) {
  std::map<HostPair, double> level;
  for (const auto& [pair, values] : p.over_tests) level[pair] = upper_median(values);
  return level;
}

// Each node's pairs' levels.
std::vector<std::vector<double>> node_rows(const std::map<HostPair, double>& level, int nodes) {
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(nodes));
  for (const auto& [pair, pair_level] : level) {
    rows[static_cast<std::size_t>(pair.a)].push_back(pair_level);
    rows[static_cast<std::size_t>(pair.b)].push_back(pair_level);
  }
  return rows;
}

// The healthy level while slow nodes are a minority: the median over nodes of the upper
// median of each node's pairs, so neither a slow node nor a slow link moves it.
double median_node_level(const PairLevels& p, int nodes) {
  std::vector<double> row_levels;
  for (const auto& row : node_rows(pair_level(p), nodes)) {
    if (!row.empty()) row_levels.push_back(upper_median(row));
  }
  return median_of(row_levels);
}

// The verdicts with `healthy` as this run's healthy pair, over the centres.
PairGraphVerdicts judge_at(const PairGraphInput& input, const PairLevels& p, double healthy) {
  PairGraphVerdicts out;
  const bool given = !input.given.empty();
  const auto& over_tests = p.over_tests;
  const auto& errors = p.errors;
  const auto& centre = p.centre;
  const double given_width = p.given_width;
  const std::map<HostPair, double> level = pair_level(p);
  const std::vector<std::vector<double>> rows = node_rows(level, input.nodes);
  const double base = given ? 0 : healthy;  // what shares are of
  for (const auto& [test, c] : centre) out.level_gbps[test] = std::exp(c + base);
  for (const auto& [test, pairs] : input.tests) {
    for (const auto& [pair, figure] : pairs) out.test_shares[test][pair] = std::exp(figure.level - centre.at(test) - base);
  }
  const double threshold_log = std::log(input.threshold);

  // Nodes: what each reaches with its better partners.
  out.nodes.resize(static_cast<std::size_t>(input.nodes));
  std::vector<double> judged_shares;
  for (std::size_t n = 0; n < rows.size(); ++n) {
    NodeVerdict& node = out.nodes[n];
    node.partners = static_cast<int>(rows[n].size());
    if (rows[n].empty()) continue;
    const double share_log = upper_quartile(rows[n]) - base;
    node.share = std::exp(share_log);
    if (node.partners >= 2) judged_shares.push_back(share_log);
  }
  // The healthy pairs' spread around the level: the pairs of nodes below the threshold
  // (candidates for slow) are left out, as their pairs are expected low.
  const auto candidate = [&](int n) {
    const NodeVerdict& node = out.nodes[static_cast<std::size_t>(n)];
    return node.partners >= 2 && std::log(node.share) < threshold_log;
  };
  // The median deviation ignores a minority of slow links; where the pairs below the
  // threshold are most of the rest (against a level only some pairs reach: every pair
  // across two racks), they are left out too.
  const auto low = [&](const HostPair& pair) { return level.at(pair) - healthy < threshold_log; };
  std::vector<HostPair> spread_pairs;
  for (const auto& [pair, pair_level] : level) {
    if (!candidate(pair.a) && !candidate(pair.b)) spread_pairs.push_back(pair);
  }
  if (2 * std::count_if(spread_pairs.begin(), spread_pairs.end(), low) > std::ssize(spread_pairs)) {
    std::erase_if(spread_pairs, low);
  }
  std::vector<double> deviations;
  const int healthy_pairs = static_cast<int>(spread_pairs.size());
  for (const HostPair& pair : spread_pairs) {
    for (const double v : over_tests.at(pair)) deviations.push_back(v - healthy);
  }
  const NoiseWidth known_given{given_width, NoiseWidth::kKnownFreedom};
  const NoiseWidth floor{kLeastNoiseWidth, NoiseWidth::kKnownFreedom};
  // The tests of one pair move together: a pair is one degree of freedom, not one per test.
  const NoiseWidth pair_noise =
      widest({{spread_of(deviations), std::max(1, healthy_pairs - 1)}, input.pooled_error, known_given, floor});
  out.pair_noise = pair_noise.width;
  out.pair_widths = significance_widths(level.size(), pair_noise.freedom);
  out.pair_peer_widths = significance_widths(level.size(), std::max(1, healthy_pairs - 1));
  // The nodes' own spread around their median: how far healthy nodes differ in this run.
  NoiseWidth node_spread;
  if (judged_shares.size() >= 3) {
    const double middle = median_of(judged_shares);
    std::vector<double> node_deviations;
    for (const double s : judged_shares) node_deviations.push_back(s - middle);
    node_spread = {spread_of(node_deviations), static_cast<int>(judged_shares.size()) - 1};
  }
  out.node_peer_widths = std::max(significance_widths(judged_shares.size(), std::max(1, healthy_pairs - 1)),
                                  judged_shares.size() >= 3 ? significance_widths(judged_shares.size(), node_spread.freedom) : 0.0);
  std::vector<double> node_noises, node_widths;
  for (std::size_t n = 0; n < rows.size(); ++n) {
    NodeVerdict& node = out.nodes[n];
    if (node.partners < 2) continue;
    std::vector<double> own;
    for (const auto& [pair, e] : errors) {
      if (pair.a == static_cast<int>(n) || pair.b == static_cast<int>(n)) own.push_back(upper_median(e));
    }
    const NoiseWidth noise =
        widest({node_spread, {pair_noise.width * quartile_noise_factor(node.partners), pair_noise.freedom},
                {median_of(own), input.pooled_error.freedom}, known_given, floor});
    node.noise = noise.width;
    node.widths = significance_widths(judged_shares.size(), noise.freedom);
    node_noises.push_back(node.noise);
    node_widths.push_back(node.widths);
    node.state = judged(std::log(node.share), node.noise, node.widths, input.threshold);
  }
  if (!node_noises.empty()) {
    out.node_noise = median_of(node_noises);
    out.node_widths = median_of(node_widths);
  }
  // The noise one pair is judged against: the healthy pairs' spread, or its own repeats'.
  const auto pair_width = [&](const HostPair& pair) {
    return widest({pair_noise, {upper_median(errors.at(pair)), input.pooled_error.freedom}});
  };
  // A node whose share (what it reaches with its better partners) sits below the
  // threshold beyond the noise its pairs are judged against is slow, though the nodes' own
  // spread (few of them, far apart on a loaded machine) left it within noise: its pairs
  // are then (nearly) all slow beyond noise, and one slow node explains them, where naming
  // each a slow link makes as many faults.
  for (std::size_t n = 0; n < rows.size(); ++n) {
    NodeVerdict& node = out.nodes[n];
    if (node.state != Judged::unresolved) continue;
    NoiseWidth widest_pair{0, NoiseWidth::kKnownFreedom};
    for (const auto& [pair, pair_level] : level) {
      if (pair.a != static_cast<int>(n) && pair.b != static_cast<int>(n)) continue;
      widest_pair = widest({widest_pair, pair_width(pair)});
    }
    const double widths = significance_widths(level.size(), widest_pair.freedom);
    if (judged(std::log(node.share), widest_pair.width, widths, input.threshold) != Judged::slow) continue;
    node.state = Judged::slow;
    node.noise = widest_pair.width;
    node.widths = widths;
  }

  // Pairs: beyond what their slow nodes explain (a pair runs at its slower node's pace).
  for (const auto& [pair, pair_level] : level) {
    PairVerdict& p = out.pairs[pair];
    p.share = std::exp(pair_level - base);
    double explained = 0;
    for (const int n : {pair.a, pair.b}) {
      const NodeVerdict& node = out.nodes[static_cast<std::size_t>(n)];
      if (node.state == Judged::slow) explained = std::min(explained, std::log(node.share));
    }
    const double beyond = pair_level - base - explained;
    p.beyond = std::exp(beyond);
    const NoiseWidth noise = pair_width(pair);
    p.noise = noise.width;
    p.widths = significance_widths(level.size(), noise.freedom);
    p.state = judged(beyond, p.noise, p.widths, input.threshold);
    // Beyond a slow node, the node's own share is uncertain (its better pairs'): only a
    // pair slow beyond noise is its link as well, never one merely below the threshold.
    if (explained < 0 && p.state == Judged::unresolved) p.state = Judged::fine;
  }
  return out;
}

// A fault only slows. Pairs that most of their tests put above the healthy level by more
// than the threshold, and beyond their noise, show a level the fabric reaches: the median
// missed it because half the nodes or more lower it (two slow hosts of four; one slow host
// and a slow link between two others). Empty: none.
std::set<HostPair> pairs_above(const PairGraphInput& input, const PairLevels& p, const PairGraphVerdicts& judged,
                               double healthy) {
  std::set<HostPair> above;
  for (const auto& [pair, values] : p.over_tests) {
    const PairVerdict& v = judged.pairs.at(pair);
    if (lower_median(values) - healthy > std::max(-std::log(input.threshold), v.widths * v.noise)) above.insert(pair);
  }
  return above;
}

// More than half of the judged nodes below the threshold.
bool most_nodes_low(const PairGraphVerdicts& g, double threshold) {
  int judged = 0, low = 0;
  for (const NodeVerdict& node : g.nodes) {
    if (node.partners < 2) continue;
    ++judged;
    low += node.share < threshold ? 1 : 0;
  }
  return 2 * low > judged;
}

}  // namespace

PairGraphVerdicts judge_pair_graph(const PairGraphInput& input) {
  const PairLevels p = pair_levels(input);
  if (p.over_tests.empty()) return {};
  const double median_level = median_node_level(p, input.nodes);
  PairGraphVerdicts out = judge_at(input, p, median_level);
  if (!input.given.empty()) return out;  // a given reference is the level
  const std::set<HostPair> above = pairs_above(input, p, out, median_level);
  if (above.empty()) return out;
  // Each test centred on those pairs, whose median is then the level. Against it the slow
  // nodes must stay at most half: when most nodes fall below it, a few pairs are faster by
  // their place in the fabric (one switch's pairs beside many across the spine), not most
  // nodes slow.
  const PairLevels reached = pair_levels(input, above);
  std::vector<double> levels;
  for (const auto& [pair, level] : pair_level(reached)) {
    if (above.count(pair) != 0) levels.push_back(level);
  }
  PairGraphVerdicts again = judge_at(input, reached, median_of(levels));
  return most_nodes_low(again, input.threshold) ? out : again;
}

}  // namespace ncclsweep::locate
