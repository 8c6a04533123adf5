#include "locate/pair_graph.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

PairGraphVerdicts judge_pair_graph(const PairGraphInput& input) {
  PairGraphVerdicts out;
  const bool given = !input.given.empty();
  // Per test: each pair's level over the test's centre (the given reference, or the
  // median pair), so tests of different busbw can be taken together.
  std::map<std::string, double> centre;
  std::map<HostPair, std::vector<double>> over_tests, errors;
  std::vector<double> given_widths;
  for (const auto& [test, pairs] : input.tests) {
    std::vector<double> levels;
    for (const auto& [pair, figure] : pairs) levels.push_back(figure.level);
    if (levels.empty()) continue;
    const auto g = input.given.find(test);
    centre[test] = given && g != input.given.end() ? g->second.level : median_of(levels);
    if (given && g != input.given.end()) given_widths.push_back(g->second.width);
    for (const auto& [pair, figure] : pairs) {
      over_tests[pair].push_back(figure.level - centre[test]);
      errors[pair].push_back(figure.error);
    }
  }
  if (over_tests.empty()) return out;
  const double given_width = given_widths.empty() ? 0 : median_of(given_widths);
  // A pair is low only when most of its tests are: one test upset while it ran names nothing.
  std::map<HostPair, double> level;
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(input.nodes));
  for (const auto& [pair, values] : over_tests) {
    level[pair] = upper_median(values);
    rows[static_cast<std::size_t>(pair.a)].push_back(level[pair]);
    rows[static_cast<std::size_t>(pair.b)].push_back(level[pair]);
  }
  std::vector<double> row_levels;
  for (const auto& row : rows) {
    if (!row.empty()) row_levels.push_back(upper_median(row));
  }
  const double healthy = median_of(row_levels);  // this run's healthy pair, over the centres
  const double base = given ? 0 : healthy;         // what shares are of
  for (const auto& [test, c] : centre) out.level_gbps[test] = std::exp(c + base);
  for (const auto& [test, pairs] : input.tests) {
    for (const auto& [pair, figure] : pairs) out.test_shares[test][pair] = std::exp(figure.level - centre[test] - base);
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
  std::vector<double> deviations;
  int healthy_pairs = 0;
  for (const auto& [pair, values] : over_tests) {
    if (candidate(pair.a) || candidate(pair.b)) continue;
    ++healthy_pairs;
    for (const double v : values) deviations.push_back(v - healthy);
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

}  // namespace ncclsweep::locate
