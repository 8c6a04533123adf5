#include "locate/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <tuple>

#include "core/iteration_stats.hpp"
#include "locate/noise.hpp"
#include "locate/pair_graph.hpp"

namespace ncclsweep::locate {
namespace {

std::string share_text(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

std::string gbps_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB/s", value);
  return text;
}

std::string percent_text(double noise) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g%%", 100 * noise);
  return text;
}

std::vector<int> ranks_of_hosts(const HostLayout& layout, const std::vector<int>& hosts) {
  std::vector<int> ranks;
  for (const int h : hosts) {
    const auto& mine = layout.host_ranks[static_cast<std::size_t>(h)];
    ranks.insert(ranks.end(), mine.begin(), mine.end());
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

// The evidence line that says how the share stands to noise.
std::string noise_text(Judged state, double noise, double widths, FindingKind kind) {
  const double tells = std::exp(-widths * noise);
  char text[160];
  if (state == Judged::slow) {
    std::snprintf(text, sizeof text, "beyond noise: named below %s (noise %s, %.3g widths)", share_text(tells).c_str(),
                  percent_text(noise).c_str(), widths);
  } else {
    std::snprintf(text, sizeof text, "within noise: this run tells a %s from noise only below %s (noise %s)",
                  std::string(name_of(kind)).c_str(), share_text(tells).c_str(), percent_text(noise).c_str());
  }
  return text;
}

// Findings keyed by what they name, so several phases add evidence to one subject; a
// subject slow in one phase is slow, unresolved only when no phase named it slow.
class FindingSet {
 public:
  void add(FindingKind kind, std::vector<int> hosts, int rail, std::vector<int> local, std::vector<int> ranks,
           Judged state, double ratio, const std::vector<std::string>& evidence) {
    auto [it, added] = entries_.try_emplace({kind, hosts, rail, local});
    Entry& e = it->second;
    if (added) e.finding = {kind, std::move(hosts), rail, std::move(local), std::move(ranks), 2.0, {}};
    if (state == Judged::slow) {
      if (!e.slow) e.finding.ratio = 2;  // a slow phase's share replaces an unresolved one's
      e.slow = true;
    }
    if (state == Judged::slow || !e.slow) e.finding.ratio = std::min(e.finding.ratio, ratio);
    e.finding.evidence.insert(e.finding.evidence.end(), evidence.begin(), evidence.end());
  }
  bool slow(FindingKind kind, const std::vector<int>& hosts, int rail = -1) const {
    const auto it = entries_.find({kind, hosts, rail, {}});
    return it != entries_.end() && it->second.slow;
  }
  void into(Verdicts& v) const {
    for (const auto& [kind, name] : kFindingKindNames.entries()) {
      (void)name;
      for (const auto& [key, e] : entries_) {
        if (std::get<0>(key) != kind) continue;
        (e.slow ? v.findings : v.unresolved).push_back(e.finding);
      }
    }
  }

 private:
  using Key = std::tuple<FindingKind, std::vector<int>, int, std::vector<int>>;  // kind, hosts, rail, local
  struct Entry {
    Finding finding;
    bool slow = false;
  };
  std::map<Key, Entry> entries_;
};

// Judging one phase's tests against a reference: the given one, or this run's own.
struct ReferenceChoice {
  const ReferenceFigures* given = nullptr;
  const Figure* find(LocatePhase phase, const std::string& test) const {
    return given != nullptr ? given->find(phase, test) : nullptr;
  }
  std::string name(const std::string& own) const {
    return given != nullptr ? "the reference (" + given->source + ")" : own;
  }
};

// Resolutions gathered per phase and subject (several hosts' GPUs, several rails): the
// median noise, the most widths.
class ResolutionSet {
 public:
  void add(LocatePhase phase, FindingKind subject, double noise, double widths, double longer_widths,
           double seconds_per_call) {
    Gathered& g = gathered_[{phase, subject}];
    g.noises.push_back(noise);
    g.widths = std::max(g.widths, widths);
    g.longer_widths = std::max(g.longer_widths, longer_widths);
    g.seconds = seconds_per_call;
  }
  std::vector<Resolution> list() const {
    std::vector<Resolution> out;
    for (const auto& [key, g] : gathered_) {
      out.push_back({key.first, key.second, median_of(g.noises), g.widths, g.seconds, g.longer_widths});
    }
    return out;
  }

 private:
  struct Gathered {
    std::vector<double> noises;
    double widths = 0, longer_widths = 0, seconds = 0;
  };
  std::map<std::pair<LocatePhase, FindingKind>, Gathered> gathered_;
};

void judge_host_phase(const HostLayout& layout, const std::vector<MeasurementRecord>& measurements, double threshold,
                      const ReferenceChoice& reference, Verdicts& v, FindingSet& found, ResolutionSet& resolutions) {
  const PhaseFigures figures = log_figures(measurements, LocatePhase::host);
  if (figures.tests.empty()) return;
  struct Tally {
    std::vector<double> shares, errors;  // per test: log share of the reference, the figure's own error
    std::vector<std::string> evidence;
  };
  std::map<int, Tally> hosts;
  std::vector<double> peer_deviations, given_widths;
  for (const auto& [test, groups] : figures.tests) {
    const Figure* given = reference.find(LocatePhase::host, test);
    const std::string ref_name = reference.name(groups.size() == 2 ? "the other host" : "the other hosts' median");
    for (const auto& [key, figure] : groups) {
      // Against the other hosts alone: inside its own baseline a slow host pulls it
      // halfway to itself when there are two.
      std::vector<double> others;
      for (const auto& [other_key, other] : groups) {
        if (!(other_key == key)) others.push_back(other.level);
      }
      const double own_reference = others.empty() ? figure.level : median_of(others);
      if (groups.size() >= 3) peer_deviations.push_back(figure.level - own_reference);
      const double ref = given != nullptr && given->median > 0 ? std::log(given->median) : own_reference;
      if (given != nullptr && given->median > 0) given_widths.push_back(given->band / given->median);
      Tally& t = hosts[key.hosts.front()];
      const double s = figure.level - ref;
      t.shares.push_back(s);
      t.errors.push_back(figure.error);
      if (s >= std::log(threshold)) continue;
      t.evidence.push_back(test + " within the host: " + gbps_text(std::exp(figure.level)) + ", " + share_text(std::exp(s)) + " " +
                           ref_name + " " + gbps_text(std::exp(ref)));
    }
  }
  // The peers' spread: how far healthy hosts differ from the others' median in this run;
  // a host's tests move together, so each host is one degree of freedom.
  const int peers = static_cast<int>(hosts.size());
  const NoiseWidth typical = widest({{spread_of(peer_deviations), std::max(1, peers - 1)},
                                     figures.pooled_error,
                                     {given_widths.empty() ? 0.0 : median_of(given_widths), NoiseWidth::kKnownFreedom},
                                     {kLeastNoiseWidth, NoiseWidth::kKnownFreedom}});
  resolutions.add(LocatePhase::host, FindingKind::host, typical.width, significance_widths(hosts.size(), typical.freedom),
                  peers >= 3 ? significance_widths(hosts.size(), peers - 1) : 0, figures.seconds_per_call);
  for (const auto& [host, t] : hosts) {
    const double share_log = upper_median(t.shares);  // more than half of its tests at or below
    const auto h = static_cast<std::size_t>(host);
    v.matrix[h][h] = std::exp(share_log);
    const NoiseWidth noise = widest({typical, {upper_median(t.errors), figures.pooled_error.freedom}});
    const double widths = significance_widths(hosts.size(), noise.freedom);
    if (share_log >= std::log(threshold)) continue;
    const Judged state = share_log < -widths * noise.width ? Judged::slow : Judged::unresolved;
    std::vector<std::string> evidence = t.evidence;
    evidence.push_back(noise_text(state, noise.width, widths, FindingKind::host));
    found.add(FindingKind::host, {host}, -1, {}, ranks_of_hosts(layout, {host}), state, std::exp(share_log), evidence);
  }
}

// Per test, the partners of `node` below the threshold in it: "all_gather 1 MiB across
// hosts: slow with h1 (0.31x), h3 (0.30x) of 3 partners; the reference 10 GB/s".
std::vector<std::string> node_evidence(const PairGraphVerdicts& g, int node, double threshold, const std::string& where,
                                       const std::function<std::string(int)>& name, const std::string& reference_name) {
  std::vector<std::string> lines;
  for (const auto& [test, shares] : g.test_shares) {
    std::string partners;
    int measured = 0;
    for (const auto& [pair, s] : shares) {
      if (pair.a != node && pair.b != node) continue;
      ++measured;
      if (s >= threshold) continue;
      partners += (partners.empty() ? "" : ", ") + name(pair.a == node ? pair.b : pair.a) + " (" + share_text(s) + ")";
    }
    if (partners.empty()) continue;
    lines.push_back(test + where + ": slow with " + partners + " of " + std::to_string(measured) + " partners; " +
                    reference_name + " " + gbps_text(g.level_gbps.at(test)));
  }
  return lines;
}

// What a pair finding says of its nodes: which slow node it is beyond, or which other
// partners a node is below the threshold with as well ("h0 is also slow with h3"), or
// that both are fine with their other partners. Partners named slow themselves are
// left out: their own pairs are their evidence.
std::string others_text(const PairGraphVerdicts& g, const HostPair& pair, double threshold,
                        const std::function<std::string(int)>& name, const std::string& fine) {
  std::string text;
  for (const int node : {pair.a, pair.b}) {
    const NodeVerdict& n = g.nodes[static_cast<std::size_t>(node)];
    if (n.state == Judged::slow) {
      text += (text.empty() ? "" : "; ") + std::string("beyond ") + name(node) + "'s own " + share_text(n.share);
      continue;
    }
    std::string also;
    for (const auto& [other, p] : g.pairs) {
      if (other == pair || (other.a != node && other.b != node) || p.share >= threshold) continue;
      const int partner = other.a == node ? other.b : other.a;
      if (g.nodes[static_cast<std::size_t>(partner)].state == Judged::slow) continue;
      also += (also.empty() ? "" : ", ") + name(partner);
    }
    if (!also.empty()) text += (text.empty() ? "" : "; ") + name(node) + " is also slow with " + also;
  }
  return text.empty() ? fine : text;
}

std::vector<std::string> pair_evidence(const PairGraphVerdicts& g, const HostPair& pair, double threshold,
                                       const std::string& where, const std::string& reference_name,
                                       const std::string& others) {
  std::vector<std::string> lines;
  for (const auto& [test, shares] : g.test_shares) {
    const auto it = shares.find(pair);
    if (it == shares.end() || it->second >= threshold) continue;
    lines.push_back(test + where + ": " + share_text(it->second) + " " + reference_name + " " + gbps_text(g.level_gbps.at(test)) +
                    "; " + others);
  }
  return lines;
}

std::map<HostPair, LogFigure> pair_figures(const std::map<GroupKey, LogFigure>& groups, int rail) {
  std::map<HostPair, LogFigure> pairs;
  for (const auto& [key, figure] : groups) {
    if (key.hosts.size() == 2 && key.rail == rail) pairs[{key.hosts[0], key.hosts[1]}] = figure;
  }
  return pairs;
}

PairGraphInput host_pairs_input(const HostLayout& layout, const PhaseFigures& figures, LocatePhase phase, int rail,
                                double threshold, const ReferenceChoice& reference) {
  PairGraphInput in;
  in.nodes = layout.host_count();
  in.threshold = threshold;
  in.pooled_error = figures.pooled_error;
  for (const auto& [test, groups] : figures.tests) {
    std::map<HostPair, LogFigure> pairs = pair_figures(groups, rail);
    if (pairs.empty()) continue;
    in.tests[test] = std::move(pairs);
    if (const Figure* given = reference.find(phase, test); given != nullptr && given->median > 0) {
      in.given[test] = {std::log(given->median), given->band / given->median};
    }
  }
  return in;
}

// Pairs of hosts (rail -1) or one rail of them: hosts slow with (nearly) all partners are
// named (as host, or nic on a rail), then pairs slow beyond their slow hosts (link, rail).
void judge_host_pairs(const HostLayout& layout, const PhaseFigures& figures, LocatePhase phase, int rail,
                      double threshold, const ReferenceChoice& reference, Verdicts& v, FindingSet& found,
                      ResolutionSet& resolutions) {
  const PairGraphInput in = host_pairs_input(layout, figures, phase, rail, threshold, reference);
  if (in.tests.empty()) return;
  const PairGraphVerdicts g = judge_pair_graph(in);
  const std::string ref_name = reference.name("the reference");
  const std::string where = rail < 0 ? " across hosts" : " on rail " + std::to_string(rail);
  const auto name = [&](int host) { return layout.hosts[static_cast<std::size_t>(host)]; };
  const FindingKind node_kind = rail < 0 ? FindingKind::host : FindingKind::nic;
  const FindingKind pair_kind = rail < 0 ? FindingKind::link : FindingKind::rail;
  resolutions.add(phase, node_kind, g.node_noise, g.node_widths, g.node_peer_widths, figures.seconds_per_call);
  resolutions.add(phase, pair_kind, g.pair_noise, g.pair_widths, g.pair_peer_widths, figures.seconds_per_call);
  if (rail < 0) {
    for (const auto& [pair, p] : g.pairs) {
      v.matrix[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(pair.b)] = p.share;
      v.matrix[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(pair.a)] = p.share;
    }
  }
  for (int host = 0; host < layout.host_count(); ++host) {
    const NodeVerdict& node = g.nodes[static_cast<std::size_t>(host)];
    if (node.state == Judged::fine) continue;
    if (rail >= 0 && found.slow(FindingKind::host, {host})) continue;  // the host explains its NIC
    std::vector<int> ranks = ranks_of_hosts(layout, {host});
    if (rail >= 0) ranks = {layout.host_ranks[static_cast<std::size_t>(host)][static_cast<std::size_t>(rail)]};
    std::vector<std::string> evidence = node_evidence(g, host, threshold, where, name, ref_name);
    evidence.push_back(noise_text(node.state, node.noise, node.widths, node_kind));
    found.add(node_kind, {host}, rail, {}, ranks, node.state, node.share, evidence);
  }
  for (const auto& [pair, p] : g.pairs) {
    if (p.state == Judged::fine) continue;
    // On a rail, a link, NIC or host already named slow explains it.
    if (rail >= 0 && (found.slow(FindingKind::link, {pair.a, pair.b}) || found.slow(FindingKind::nic, {pair.a}, rail) ||
                      found.slow(FindingKind::nic, {pair.b}, rail) || found.slow(FindingKind::host, {pair.a}) ||
                      found.slow(FindingKind::host, {pair.b}))) {
      continue;
    }
    std::vector<int> ranks = ranks_of_hosts(layout, {pair.a, pair.b});
    if (rail >= 0) {
      ranks = {layout.host_ranks[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(rail)],
               layout.host_ranks[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(rail)]};
    }
    const std::string others =
        others_text(g, pair, threshold, name, name(pair.a) + " and " + name(pair.b) + " are fine with their other partners");
    std::vector<std::string> evidence = pair_evidence(g, pair, threshold, where, ref_name, others);
    evidence.push_back(noise_text(p.state, p.noise, p.widths, pair_kind));
    found.add(pair_kind, {pair.a, pair.b}, rail, {}, ranks, p.state, p.beyond, evidence);
  }
}

// The gpus steps: on each host, the neighbour pairs of its GPUs (local indices) against
// that host's own GPU pairs' level. Always within the host: a GPU pair is compared with
// its host's other pairs, with or without --reference.
void judge_gpu_pairs(const HostLayout& layout, const std::vector<MeasurementRecord>& measurements, double threshold,
                     Verdicts& v, FindingSet& found, ResolutionSet& resolutions) {
  const PhaseFigures figures = log_figures(measurements, LocatePhase::gpus);
  for (int host = 0; host < layout.host_count(); ++host) {
    const auto& host_ranks = layout.host_ranks[static_cast<std::size_t>(host)];
    const int gpus = static_cast<int>(host_ranks.size());
    PairGraphInput in;
    in.nodes = gpus;
    in.threshold = threshold;
    in.pooled_error = figures.pooled_error;
    for (const auto& [test, groups] : figures.tests) {
      for (const auto& [key, figure] : groups) {
        if (key.hosts != std::vector<int>{host} || key.ranks.size() != 2) continue;
        const int a = layout.local_index(key.ranks[0]), b = layout.local_index(key.ranks[1]);
        in.tests[test][{std::min(a, b), std::max(a, b)}] = figure;
      }
    }
    if (in.tests.empty()) continue;
    const PairGraphVerdicts g = judge_pair_graph(in);
    resolutions.add(LocatePhase::gpus, FindingKind::gpu, g.node_noise, g.node_widths, g.node_peer_widths,
                    figures.seconds_per_call);
    resolutions.add(LocatePhase::gpus, FindingKind::gpu_link, g.pair_noise, g.pair_widths, g.pair_peer_widths,
                    figures.seconds_per_call);
    auto& cells = v.gpu_matrix[static_cast<std::size_t>(host)];
    cells.assign(static_cast<std::size_t>(gpus), std::vector<double>(static_cast<std::size_t>(gpus), -1.0));
    for (const auto& [pair, p] : g.pairs) {
      cells[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(pair.b)] = p.share;
      cells[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(pair.a)] = p.share;
    }
    const std::string host_name = layout.hosts[static_cast<std::size_t>(host)];
    const auto name = [](int local) { return "local " + std::to_string(local); };
    const auto rank_of = [&](int local) { return host_ranks[static_cast<std::size_t>(local)]; };
    const std::string ref_name = "the level of " + host_name + "'s GPU pairs";
    const std::string where = " within " + host_name;
    for (int gpu = 0; gpu < gpus; ++gpu) {
      const NodeVerdict& node = g.nodes[static_cast<std::size_t>(gpu)];
      if (node.state == Judged::fine) continue;
      std::vector<std::string> evidence = node_evidence(g, gpu, threshold, where, name, ref_name);
      evidence.push_back(noise_text(node.state, node.noise, node.widths, FindingKind::gpu));
      found.add(FindingKind::gpu, {host}, -1, {gpu}, {rank_of(gpu)}, node.state, node.share, evidence);
    }
    for (const auto& [pair, p] : g.pairs) {
      if (p.state == Judged::fine) continue;
      const std::string others = others_text(g, pair, threshold, name,
                                             name(pair.a) + " and " + name(pair.b) + " are fine with their other neighbours");
      std::vector<std::string> evidence = pair_evidence(g, pair, threshold, where, ref_name, others);
      evidence.push_back(noise_text(p.state, p.noise, p.widths, FindingKind::gpu_link));
      found.add(FindingKind::gpu_link, {host}, -1, {pair.a, pair.b}, {rank_of(pair.a), rank_of(pair.b)}, p.state,
                p.beyond, evidence);
    }
  }
}

std::set<int> rails_of(const PhaseFigures& figures) {
  std::set<int> rails;
  for (const auto& [test, groups] : figures.tests) {
    for (const auto& [key, figure] : groups) {
      if (key.rail >= 0) rails.insert(key.rail);
    }
  }
  return rails;
}

}  // namespace

Figure figure_of(std::vector<double> repeats) {
  if (repeats.empty()) return {};
  std::sort(repeats.begin(), repeats.end());
  const double median = median_of(repeats);
  // Half the range; from five repeats on, of all but the lowest and the highest, so one
  // repeat upset by a burst of load (or one lucky one) does not widen the band alone.
  const std::size_t trim = repeats.size() >= 5 ? 1 : 0;
  const double range = repeats[repeats.size() - 1 - trim] - repeats[trim];
  const double spread = median > 0 ? range / 2 / median : 0;
  return {median, std::max(kLocateNoiseBand, spread) * median};
}

double Resolution::tells_below() const { return std::exp(-widths * noise); }

double Resolution::longer_for(double threshold) const {
  // The noise that tells the threshold, at the widths a longer run faces.
  const double needed = -std::log(threshold) / std::max(widths, longer_widths);
  if (noise <= needed) return 1;
  // Below the least noise width no length of repeat gets.
  if (!(needed > kLeastNoiseWidth)) return std::numeric_limits<double>::infinity();
  // Twice what would tell it exactly: the noise is an estimate too, and a run of exactly
  // that length would tell the threshold about half the time.
  return 2 * (noise / needed) * (noise / needed);
}

const Figure* ReferenceFigures::find(LocatePhase phase, const std::string& test) const {
  const auto p = by_phase.find(phase);
  if (p == by_phase.end()) return nullptr;
  const auto t = p->second.find(test);
  return t == p->second.end() ? nullptr : &t->second;
}

ReferenceFigures own_references(const HostLayout& layout, const std::vector<MeasurementRecord>& measurements) {
  ReferenceFigures r;
  // Each figure with a band of its level's noise width: the hosts' spread around their
  // median, or the healthy pairs' around their level.
  for (const auto& [test, groups] : log_figures(measurements, LocatePhase::host).tests) {
    std::vector<double> levels;
    for (const auto& [key, figure] : groups) levels.push_back(figure.level);
    const double middle = median_of(levels);
    std::vector<double> deviations;
    for (const double level : levels) deviations.push_back(level - middle);
    const double level = std::exp(middle);
    r.by_phase[LocatePhase::host][test] = {level, level * std::max(spread_of(deviations), kLocateNoiseBand)};
  }
  const ReferenceChoice own;
  const PhaseFigures pairs = log_figures(measurements, LocatePhase::pairs);
  const PairGraphVerdicts g = judge_pair_graph(host_pairs_input(layout, pairs, LocatePhase::pairs, -1, 0.9, own));
  for (const auto& [test, level] : g.level_gbps) r.by_phase[LocatePhase::pairs][test] = {level, level * g.pair_noise};
  // Rails: each rail has its own level; a later run takes their median.
  const PhaseFigures rails = log_figures(measurements, LocatePhase::rails);
  std::map<std::string, std::vector<Figure>> per_test;
  for (const int rail : rails_of(rails)) {
    const PairGraphVerdicts rg = judge_pair_graph(host_pairs_input(layout, rails, LocatePhase::rails, rail, 0.9, own));
    for (const auto& [test, level] : rg.level_gbps) per_test[test].push_back({level, level * rg.pair_noise});
  }
  for (const auto& [test, figures] : per_test) {
    std::vector<double> levels, bands;
    for (const Figure& f : figures) {
      levels.push_back(f.median);
      bands.push_back(f.band);
    }
    r.by_phase[LocatePhase::rails][test] = {median_of(levels), median_of(bands)};
  }
  return r;
}

Verdicts judge(const HostLayout& layout, const std::vector<MeasurementRecord>& measurements, double threshold,
               const ReferenceFigures* reference) {
  const auto hosts = static_cast<std::size_t>(layout.host_count());
  Verdicts v;
  v.threshold = threshold;
  v.matrix.assign(hosts, std::vector<double>(hosts, -1.0));
  v.gpu_matrix.assign(hosts, {});
  FindingSet found;
  ResolutionSet resolutions;
  const ReferenceChoice choice{reference};
  judge_host_phase(layout, measurements, threshold, choice, v, found, resolutions);
  judge_host_pairs(layout, log_figures(measurements, LocatePhase::pairs), LocatePhase::pairs, -1, threshold, choice, v,
                   found, resolutions);
  const PhaseFigures rails = log_figures(measurements, LocatePhase::rails);
  for (const int rail : rails_of(rails)) {
    judge_host_pairs(layout, rails, LocatePhase::rails, rail, threshold, choice, v, found, resolutions);
  }
  judge_gpu_pairs(layout, measurements, threshold, v, found, resolutions);
  found.into(v);
  v.resolution = resolutions.list();
  return v;
}

}  // namespace ncclsweep::locate
