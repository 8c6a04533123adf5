#include "locate/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <tuple>

namespace ncclsweep::locate {
namespace {

std::string share(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

std::string gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB/s", value);
  return text;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The median figure of several: median of the medians, median of the bands.
Figure median_figure(const std::vector<Figure>& figures) {
  std::vector<double> medians, bands;
  for (const Figure& f : figures) {
    medians.push_back(f.median);
    bands.push_back(f.band);
  }
  return {median_of(medians), median_of(bands)};
}

double ratio_to(const Figure& value, const Figure& reference) {
  return reference.median > 0 ? value.median / reference.median : 1;
}

// What one group of a phase measured: its hosts, rail and ranks.
struct GroupKey {
  std::vector<int> hosts;
  int rail = -1;
  std::vector<int> ranks;
  auto operator<=>(const GroupKey&) const = default;
};
// Per test ("all_gather 256 KiB"), per group: the figure of its repeats.
using TestFigures = std::map<std::string, std::map<GroupKey, Figure>>;

TestFigures figures_of(const std::vector<Measurement>& measurements, LocatePhase phase) {
  std::map<std::string, std::map<GroupKey, std::vector<double>>> repeats;
  for (const Measurement& m : measurements) {
    if (m.phase == phase) repeats[m.test()][{m.hosts, m.rail, m.ranks}].push_back(m.busbw_gbps);
  }
  TestFigures figures;
  for (const auto& [test, groups] : repeats) {
    for (const auto& [key, values] : groups) figures[test][key] = figure_of(values);
  }
  return figures;
}

// The reference of pairs of nodes (hosts, or the GPUs of one host) with no other: what a
// node reaches with its better partners (the upper quartile of its row), the median of
// that over nodes. One slow node then lowers every row it is in by one entry only, and
// cannot drag the reference down with it.
Figure better_partner_reference(int nodes, const std::map<HostPair, Figure>& values) {
  std::vector<std::vector<Figure>> rows(static_cast<std::size_t>(nodes));
  for (const auto& [pair, figure] : values) {
    rows[static_cast<std::size_t>(pair.a)].push_back(figure);
    rows[static_cast<std::size_t>(pair.b)].push_back(figure);
  }
  std::vector<Figure> upper;
  for (auto& row : rows) {
    if (row.empty()) continue;
    std::sort(row.begin(), row.end(), [](const Figure& x, const Figure& y) { return x.median < y.median; });
    const auto at = static_cast<std::size_t>(std::ceil(0.75 * static_cast<double>(row.size() - 1)));
    upper.push_back(row[at]);
  }
  return median_figure(upper);
}

// One test's pairs of nodes: each pair's share of the reference, and which are below it.
struct PairsJudgement {
  Figure reference;
  std::map<HostPair, double> ratio;
  std::set<HostPair> low;
};

PairsJudgement judge_pairs(int nodes, const std::map<HostPair, Figure>& values, double threshold,
                           const Figure* reference) {
  PairsJudgement j;
  j.reference = reference != nullptr ? *reference : better_partner_reference(nodes, values);
  for (const auto& [pair, figure] : values) {
    j.ratio[pair] = ratio_to(figure, j.reference);
    if (below(figure, j.reference, threshold)) j.low.insert(pair);
  }
  return j;
}

// Every test of a phase together: a pair is low when it is low in more than half of the
// tests it was measured in. A node is low when more than half of its partners (at least
// two) lean low with it: the pair is low in one test at least and below the threshold
// over all its tests. A slow node often sits right at the threshold in one test of its
// pairs; counting only pairs low in most tests then named one of its pairs as a link,
// "fine with their other partners", next to partners it was just as slow with.
class ConsistentPairs {
 public:
  explicit ConsistentPairs(double threshold) : threshold_(threshold) {}

  void add(const std::string& test, const PairsJudgement& j) {
    for (const auto& [pair, ratio] : j.ratio) {
      Tally& t = pairs_[pair];
      ++t.tests;
      t.ratios.push_back(ratio);
      if (j.low.count(pair) > 0) {
        ++t.low;
        t.low_ratios.push_back(ratio);
      }
    }
    tests_.push_back({test, j});
  }

  bool pair_low(const HostPair& pair) const {
    const auto it = pairs_.find(pair);
    return it != pairs_.end() && 2 * it->second.low > it->second.tests;
  }
  std::vector<HostPair> measured_pairs() const {
    std::vector<HostPair> out;
    for (const auto& [pair, t] : pairs_) out.push_back(pair);
    return out;
  }
  std::vector<HostPair> low_pairs() const {
    std::vector<HostPair> out;
    for (const auto& [pair, t] : pairs_) {
      if (pair_low(pair)) out.push_back(pair);
    }
    return out;
  }
  // The pair's ratio over all its tests (the heat map's cell).
  double ratio(const HostPair& pair) const { return median_of(pairs_.at(pair).ratios); }
  // ... over the tests it was low in (a finding's "how slow").
  double low_ratio(const HostPair& pair) const { return median_of(pairs_.at(pair).low_ratios); }

  // Low in a test at least, and below the threshold over all of them.
  bool pair_leans_low(const HostPair& pair) const {
    const auto it = pairs_.find(pair);
    return it != pairs_.end() && it->second.low > 0 && median_of(it->second.ratios) < threshold_;
  }
  int partners(int node) const { return count(node, false); }
  int low_partners(int node) const { return count(node, true); }
  bool node_low(int node) const { return partners(node) >= 2 && 2 * low_partners(node) > partners(node); }
  double node_ratio(int node) const {
    std::vector<double> ratios;
    for (const auto& [pair, t] : pairs_) {
      if ((pair.a == node || pair.b == node) && pair_leans_low(pair)) ratios.push_back(low_ratio(pair));
    }
    return median_of(ratios);
  }
  // What a pair finding says of its two nodes' other partners: fine with them, or which
  // of them a node leans low with as well ("h2 is also slow with h0, h1"). A partner
  // already named slow itself (`named`) explains its own pairs and is left out.
  std::string others_text(const HostPair& pair, const std::function<std::string(int)>& name,
                          const std::function<bool(int)>& named, const std::string& fine) const {
    std::string text;
    for (const int node : {pair.a, pair.b}) {
      std::string also;
      for (const auto& [other, t] : pairs_) {
        if (other == pair || (other.a != node && other.b != node) || !pair_leans_low(other)) continue;
        const int partner = other.a == node ? other.b : other.a;
        if (named(partner)) continue;
        also += (also.empty() ? "" : ", ") + name(partner);
      }
      if (!also.empty()) text += (text.empty() ? "" : "; ") + name(node) + " is also slow with " + also;
    }
    return text.empty() ? fine : text;
  }

  // Per test, the partners of `node` low in it: "all_gather 1 MiB across hosts: slow with
  // h1 (0.31x), h3 (0.30x) of 3 partners; the reference 10 GB/s".
  std::vector<std::string> node_evidence(int node, const std::string& where,
                                         const std::function<std::string(int)>& name,
                                         const std::string& reference_name) const {
    std::vector<std::string> lines;
    for (const auto& [test, j] : tests_) {
      std::string partners;
      int measured = 0;
      for (const auto& [pair, ratio] : j.ratio) {
        if (pair.a != node && pair.b != node) continue;
        ++measured;
        if (j.low.count(pair) == 0) continue;
        partners += (partners.empty() ? "" : ", ") + name(pair.a == node ? pair.b : pair.a) + " (" + share(ratio) + ")";
      }
      if (partners.empty()) continue;
      lines.push_back(test + where + ": slow with " + partners + " of " + std::to_string(measured) + " partners; " +
                      reference_name + " " + gbps(j.reference.median));
    }
    return lines;
  }
  std::vector<std::string> pair_evidence(const HostPair& pair, const std::string& where,
                                         const std::string& reference_name, const std::string& fine) const {
    std::vector<std::string> lines;
    for (const auto& [test, j] : tests_) {
      if (j.low.count(pair) == 0) continue;
      lines.push_back(test + where + ": " + share(j.ratio.at(pair)) + " " + reference_name + " " +
                      gbps(j.reference.median) + "; " + fine);
    }
    return lines;
  }

 private:
  struct Tally {
    int tests = 0, low = 0;
    std::vector<double> ratios, low_ratios;
  };
  int count(int node, bool leaning_low_only) const {
    int n = 0;
    for (const auto& [pair, t] : pairs_) {
      if ((pair.a == node || pair.b == node) && (!leaning_low_only || pair_leans_low(pair))) ++n;
    }
    return n;
  }
  double threshold_;
  std::map<HostPair, Tally> pairs_;
  std::vector<std::pair<std::string, PairsJudgement>> tests_;
};

std::map<HostPair, Figure> pair_figures(const std::map<GroupKey, Figure>& groups, int rail) {
  std::map<HostPair, Figure> pairs;
  for (const auto& [key, figure] : groups) {
    if (key.hosts.size() == 2 && key.rail == rail) pairs[{key.hosts[0], key.hosts[1]}] = figure;
  }
  return pairs;
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

// Findings keyed by what they name, so several phases add evidence to one finding.
class FindingSet {
 public:
  using Key = std::tuple<FindingKind, std::vector<int>, int, std::vector<int>>;  // kind, hosts, rail, local

  Finding& at(FindingKind kind, std::vector<int> hosts, int rail, std::vector<int> local,
              std::vector<int> ranks) {
    auto [it, added] = findings_.try_emplace({kind, hosts, rail, local});
    if (added) {
      Finding& f = it->second;
      f.kind = kind;
      f.hosts = std::move(hosts);
      f.rail = rail;
      f.local = std::move(local);
      f.ranks = std::move(ranks);
      f.ratio = 2;  // above any real share until the first add()
    }
    return it->second;
  }
  bool has(FindingKind kind, const std::vector<int>& hosts, int rail = -1) const {
    return findings_.count({kind, hosts, rail, {}}) > 0;
  }
  void add(Finding& f, double ratio, const std::vector<std::string>& evidence) {
    f.ratio = std::min(f.ratio, ratio);
    f.evidence.insert(f.evidence.end(), evidence.begin(), evidence.end());
  }
  std::vector<Finding> ordered() const {
    std::vector<Finding> out;
    for (const auto& [kind, name] : kFindingKindNames.entries()) {
      for (const auto& [key, f] : findings_) {
        if (std::get<0>(key) == kind) out.push_back(f);
      }
    }
    return out;
  }

 private:
  std::map<Key, Finding> findings_;
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

void judge_host_phase(const HostLayout& layout, const std::vector<Measurement>& measurements, double threshold,
                      const ReferenceChoice& reference, Verdicts& v, FindingSet& found) {
  struct Tally {
    int tests = 0;
    std::vector<double> ratios, low_ratios;
    std::vector<std::string> evidence;
  };
  std::map<int, Tally> hosts;
  for (const auto& [test, groups] : figures_of(measurements, LocatePhase::host)) {
    const Figure* given = reference.find(LocatePhase::host, test);
    const std::string ref_name = reference.name(groups.size() == 2 ? "the other host" : "the other hosts' median");
    for (const auto& [key, figure] : groups) {
      // Against the other hosts alone: inside its own baseline a slow host pulls it
      // halfway to itself when there are two (a host 15% slower then passed a 0.9 threshold).
      std::vector<Figure> others;
      for (const auto& [other_key, other] : groups) {
        if (!(other_key == key)) others.push_back(other);
      }
      const Figure ref = given != nullptr ? *given : others.empty() ? figure : median_figure(others);
      Tally& t = hosts[key.hosts.front()];
      const double ratio = ratio_to(figure, ref);
      ++t.tests;
      t.ratios.push_back(ratio);
      if (!below(figure, ref, threshold)) continue;
      t.low_ratios.push_back(ratio);
      t.evidence.push_back(test + " within the host: " + gbps(figure.median) + ", " + share(ratio) + " " + ref_name +
                           " " + gbps(ref.median));
    }
  }
  for (const auto& [host, t] : hosts) {
    const auto h = static_cast<std::size_t>(host);
    v.matrix[h][h] = median_of(t.ratios);
    if (2 * t.low_ratios.size() <= static_cast<std::size_t>(t.tests)) continue;
    found.add(found.at(FindingKind::host, {host}, -1, {}, ranks_of_hosts(layout, {host})), median_of(t.low_ratios), t.evidence);
  }
}

// Pairs of hosts (rail -1) or one rail of them: hosts slow with most partners are named
// (as `node_kind`), then pairs whose hosts are fine elsewhere (as `pair_kind`).
void judge_host_pairs(const HostLayout& layout, const TestFigures& tests, LocatePhase phase, int rail,
                      double threshold, const ReferenceChoice& reference, Verdicts& v, FindingSet& found) {
  const int hosts = layout.host_count();
  ConsistentPairs consistent(threshold);
  const std::string ref_name = reference.name("the reference");
  for (const auto& [test, groups] : tests) {
    const std::map<HostPair, Figure> values = pair_figures(groups, rail);
    if (values.empty()) continue;
    consistent.add(test, judge_pairs(hosts, values, threshold, reference.find(phase, test)));
  }
  const std::string where = rail < 0 ? " across hosts" : " on rail " + std::to_string(rail);
  const auto name = [&](int host) { return layout.hosts[static_cast<std::size_t>(host)]; };
  const FindingKind node_kind = rail < 0 ? FindingKind::host : FindingKind::nic;
  const FindingKind pair_kind = rail < 0 ? FindingKind::link : FindingKind::rail;
  if (rail < 0) {
    for (const HostPair& pair : consistent.measured_pairs()) {
      v.matrix[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(pair.b)] = consistent.ratio(pair);
      v.matrix[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(pair.a)] = consistent.ratio(pair);
    }
  }
  for (int host = 0; host < hosts; ++host) {
    if (!consistent.node_low(host)) continue;
    if (rail >= 0 && found.has(FindingKind::host, {host})) continue;  // the host explains its NIC
    std::vector<int> ranks = ranks_of_hosts(layout, {host});
    if (rail >= 0) ranks = {layout.host_ranks[static_cast<std::size_t>(host)][static_cast<std::size_t>(rail)]};
    found.add(found.at(node_kind, {host}, rail, {}, ranks), consistent.node_ratio(host),
              consistent.node_evidence(host, where, name, ref_name));
  }
  // A host (or, on a rail, its NIC) already named: its own pairs are its evidence.
  const auto slow_host = [&](int host) {
    return found.has(FindingKind::host, {host}) || (rail >= 0 && found.has(FindingKind::nic, {host}, rail));
  };
  for (const HostPair& pair : consistent.low_pairs()) {
    // A pair of a slow host (or NIC, or a link already named) is explained by that.
    if (found.has(FindingKind::host, {pair.a}) || found.has(FindingKind::host, {pair.b})) continue;
    if (rail >= 0 && (found.has(FindingKind::link, {pair.a, pair.b}) || found.has(FindingKind::nic, {pair.a}, rail) ||
                      found.has(FindingKind::nic, {pair.b}, rail))) {
      continue;
    }
    std::vector<int> ranks = ranks_of_hosts(layout, {pair.a, pair.b});
    if (rail >= 0) {
      ranks = {layout.host_ranks[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(rail)],
               layout.host_ranks[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(rail)]};
    }
    found.add(found.at(pair_kind, {pair.a, pair.b}, rail, {}, ranks), consistent.low_ratio(pair),
              consistent.pair_evidence(pair, where, ref_name,
                                       consistent.others_text(pair, name, slow_host,
                                                              name(pair.a) + " and " + name(pair.b) +
                                                                  " are fine with their other partners")));
  }
}

// The gpus steps: on each host, the neighbour pairs of its GPUs (local indices) against
// what that host's GPUs reach with their better partners. Always within the host: a
// GPU pair is compared with its host's other pairs, with or without --reference.
void judge_gpu_pairs(const HostLayout& layout, const std::vector<Measurement>& measurements, double threshold,
                     Verdicts& v, FindingSet& found) {
  const TestFigures tests = figures_of(measurements, LocatePhase::gpus);
  for (int host = 0; host < layout.host_count(); ++host) {
    const auto& host_ranks = layout.host_ranks[static_cast<std::size_t>(host)];
    const int gpus = static_cast<int>(host_ranks.size());
    ConsistentPairs consistent(threshold);
    for (const auto& [test, groups] : tests) {
      std::map<HostPair, Figure> values;
      for (const auto& [key, figure] : groups) {
        if (key.hosts != std::vector<int>{host} || key.ranks.size() != 2) continue;
        const int a = layout.local_index(key.ranks[0]), b = layout.local_index(key.ranks[1]);
        values[{std::min(a, b), std::max(a, b)}] = figure;
      }
      if (!values.empty()) consistent.add(test, judge_pairs(gpus, values, threshold, nullptr));
    }
    const std::vector<HostPair> measured = consistent.measured_pairs();
    if (measured.empty()) continue;
    auto& cells = v.gpu_matrix[static_cast<std::size_t>(host)];
    cells.assign(static_cast<std::size_t>(gpus), std::vector<double>(static_cast<std::size_t>(gpus), -1.0));
    for (const HostPair& pair : measured) {
      cells[static_cast<std::size_t>(pair.a)][static_cast<std::size_t>(pair.b)] = consistent.ratio(pair);
      cells[static_cast<std::size_t>(pair.b)][static_cast<std::size_t>(pair.a)] = consistent.ratio(pair);
    }
    const std::string host_name = layout.hosts[static_cast<std::size_t>(host)];
    const auto name = [](int local) { return "local " + std::to_string(local); };
    const auto rank_of = [&](int local) { return host_ranks[static_cast<std::size_t>(local)]; };
    const std::string ref_name = "the reference of " + host_name + "'s GPU pairs";
    std::set<int> slow_gpus;
    for (int gpu = 0; gpu < gpus; ++gpu) {
      if (!consistent.node_low(gpu)) continue;
      slow_gpus.insert(gpu);
      found.add(found.at(FindingKind::gpu, {host}, -1, {gpu}, {rank_of(gpu)}), consistent.node_ratio(gpu),
                consistent.node_evidence(gpu, " within " + host_name, name, ref_name));
    }
    const auto slow_gpu = [&](int gpu) { return slow_gpus.count(gpu) > 0; };
    for (const HostPair& pair : consistent.low_pairs()) {
      if (slow_gpu(pair.a) || slow_gpu(pair.b)) continue;  // the GPU explains it
      found.add(found.at(FindingKind::gpu_link, {host}, -1, {pair.a, pair.b}, {rank_of(pair.a), rank_of(pair.b)}),
                consistent.low_ratio(pair),
                consistent.pair_evidence(pair, " within " + host_name, ref_name,
                                         consistent.others_text(pair, name, slow_gpu,
                                                                name(pair.a) + " and " + name(pair.b) +
                                                                    " are fine with their other neighbours")));
    }
  }
}

std::set<int> rails_of(const std::map<GroupKey, Figure>& groups) {
  std::set<int> rails;
  for (const auto& [key, figure] : groups) {
    if (key.rail >= 0) rails.insert(key.rail);
  }
  return rails;
}

// One phase's tests regrouped per rail: rail -> test -> groups.
std::map<int, TestFigures> per_rail(const TestFigures& tests) {
  std::map<int, TestFigures> out;
  for (const auto& [test, groups] : tests) {
    for (const auto& [key, figure] : groups) out[key.rail][test][key] = figure;
  }
  return out;
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

bool below(const Figure& value, const Figure& reference, double threshold) {
  return value.median < threshold * reference.median && value.median + value.band < reference.median - reference.band;
}

const Figure* ReferenceFigures::find(LocatePhase phase, const std::string& test) const {
  const auto p = by_phase.find(phase);
  if (p == by_phase.end()) return nullptr;
  const auto t = p->second.find(test);
  return t == p->second.end() ? nullptr : &t->second;
}

ReferenceFigures own_references(const HostLayout& layout, const std::vector<Measurement>& measurements) {
  ReferenceFigures r;
  for (const auto& [test, groups] : figures_of(measurements, LocatePhase::host)) {
    std::vector<Figure> all;
    for (const auto& [key, figure] : groups) all.push_back(figure);
    r.by_phase[LocatePhase::host][test] = median_figure(all);
  }
  for (const auto& [test, groups] : figures_of(measurements, LocatePhase::pairs)) {
    r.by_phase[LocatePhase::pairs][test] = better_partner_reference(layout.host_count(), pair_figures(groups, -1));
  }
  // Rails: each rail has its own reference; a later run takes their median.
  for (const auto& [test, groups] : figures_of(measurements, LocatePhase::rails)) {
    std::vector<Figure> rails;
    for (const int rail : rails_of(groups)) {
      rails.push_back(better_partner_reference(layout.host_count(), pair_figures(groups, rail)));
    }
    r.by_phase[LocatePhase::rails][test] = median_figure(rails);
  }
  return r;
}

Verdicts judge(const HostLayout& layout, const std::vector<Measurement>& measurements, double threshold,
               const ReferenceFigures* reference) {
  const auto hosts = static_cast<std::size_t>(layout.host_count());
  Verdicts v;
  v.matrix.assign(hosts, std::vector<double>(hosts, -1.0));
  v.gpu_matrix.assign(hosts, {});
  FindingSet found;
  const ReferenceChoice choice{reference};
  judge_host_phase(layout, measurements, threshold, choice, v, found);
  judge_host_pairs(layout, figures_of(measurements, LocatePhase::pairs), LocatePhase::pairs, -1, threshold, choice, v, found);
  for (const auto& [rail, tests] : per_rail(figures_of(measurements, LocatePhase::rails))) {
    judge_host_pairs(layout, tests, LocatePhase::rails, rail, threshold, choice, v, found);
  }
  judge_gpu_pairs(layout, measurements, threshold, v, found);
  v.findings = found.ordered();
  return v;
}

}  // namespace ncclsweep::locate
