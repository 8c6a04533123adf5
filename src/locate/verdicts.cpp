#include "locate/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

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

// Per test, per group key (hosts, rail): the repeats' busbw.
using GroupKey = std::pair<std::vector<int>, int>;
using TestFigures = std::map<std::string, std::map<GroupKey, Figure>>;

TestFigures figures_of(const std::vector<Measurement>& measurements, const std::string& phase) {
  std::map<std::string, std::map<GroupKey, std::vector<double>>> repeats;
  for (const Measurement& m : measurements) {
    if (m.phase == phase) repeats[m.test()][{m.hosts, m.rail}].push_back(m.busbw_gbps);
  }
  TestFigures figures;
  for (const auto& [test, groups] : repeats) {
    for (const auto& [key, values] : groups) figures[test][key] = figure_of(values);
  }
  return figures;
}

// One test's pairs, judged: which are low, and each pair's share of the reference.
struct PairsJudgement {
  Figure reference;
  std::map<HostPair, double> ratio;
  std::set<HostPair> low;
  std::vector<int> pairs_of_host, low_of_host;  // per host: measured pairs, low ones
  double worst_of_host(int host) const {
    double worst = 1;
    for (const auto& pair : low) {
      if (pair.a == host || pair.b == host) worst = std::min(worst, ratio.at(pair));
    }
    return worst;
  }
  bool host_low(int host) const {
    const auto h = static_cast<std::size_t>(host);
    return pairs_of_host[h] >= 2 && 2 * low_of_host[h] > pairs_of_host[h];
  }
};

// The reference is what a host reaches with its better partners (the upper quartile of
// its row), taken as the median over hosts: one slow host then lowers every row it is
// in by one entry only, and cannot drag the reference down with it.
PairsJudgement judge_pairs(int hosts, const std::map<HostPair, Figure>& values, double threshold) {
  PairsJudgement j;
  std::vector<std::vector<Figure>> rows(static_cast<std::size_t>(hosts));
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
  j.reference = median_figure(upper);
  j.pairs_of_host.assign(static_cast<std::size_t>(hosts), 0);
  j.low_of_host.assign(static_cast<std::size_t>(hosts), 0);
  for (const auto& [pair, figure] : values) {
    j.ratio[pair] = j.reference.median > 0 ? figure.median / j.reference.median : 1;
    const bool low = below(figure, j.reference, threshold);
    if (low) j.low.insert(pair);
    for (const int host : {pair.a, pair.b}) {
      ++j.pairs_of_host[static_cast<std::size_t>(host)];
      if (low) ++j.low_of_host[static_cast<std::size_t>(host)];
    }
  }
  return j;
}

std::map<HostPair, Figure> pair_figures(const std::map<GroupKey, Figure>& groups, int rail) {
  std::map<HostPair, Figure> pairs;
  for (const auto& [key, figure] : groups) {
    if (key.first.size() == 2 && key.second == rail) pairs[{key.first[0], key.first[1]}] = figure;
  }
  return pairs;
}

std::string partner_list(const HostLayout& layout, int host, const std::set<HostPair>& low) {
  std::string names;
  for (const HostPair& p : low) {
    if (p.a != host && p.b != host) continue;
    names += (names.empty() ? "" : ",") + layout.hosts[static_cast<std::size_t>(p.a == host ? p.b : p.a)];
  }
  return names;
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

// Findings keyed by what they name, so several tests add evidence to one finding.
class FindingSet {
 public:
  Finding& at(const std::string& kind, std::vector<int> hosts, int rail, const HostLayout& layout) {
    auto [it, added] = findings_.try_emplace({kind, hosts, rail});
    if (added) {
      it->second.kind = kind;
      it->second.hosts = hosts;
      it->second.rail = rail;
      if (rail < 0) {
        it->second.ranks = ranks_of_hosts(layout, hosts);
      } else {
        for (const int h : hosts) {
          const auto& mine = layout.host_ranks[static_cast<std::size_t>(h)];
          if (static_cast<std::size_t>(rail) < mine.size()) it->second.ranks.push_back(mine[static_cast<std::size_t>(rail)]);
        }
      }
    }
    return it->second;
  }
  bool has(const std::string& kind, const std::vector<int>& hosts, int rail = -1) const {
    return findings_.count({kind, hosts, rail}) > 0;
  }
  void add(Finding& f, double ratio, std::string evidence) {
    f.ratio = std::min(f.ratio, ratio);
    f.evidence.push_back(std::move(evidence));
  }
  std::vector<Finding> ordered() const {
    std::vector<Finding> out;
    for (const char* kind : {"host", "nic", "link", "rail"}) {
      for (const auto& [key, f] : findings_) {
        if (std::get<0>(key) == kind) out.push_back(f);
      }
    }
    return out;
  }

 private:
  std::map<std::tuple<std::string, std::vector<int>, int>, Finding> findings_;
};

}  // namespace

Figure figure_of(std::vector<double> repeats) {
  if (repeats.empty()) return {};
  const auto [lo, hi] = std::minmax_element(repeats.begin(), repeats.end());
  const double median = median_of(repeats);
  const double spread = median > 0 ? (*hi - *lo) / 2 / median : 0;
  return {median, std::max(kLocateNoiseBand, spread) * median};
}

bool below(const Figure& value, const Figure& reference, double threshold) {
  return value.median < threshold * reference.median && value.median + value.band < reference.median - reference.band;
}

Verdicts judge(const HostLayout& layout, const std::vector<Measurement>& measurements, double threshold) {
  const int hosts = layout.host_count();
  Verdicts v;
  v.matrix.assign(static_cast<std::size_t>(hosts), std::vector<double>(static_cast<std::size_t>(hosts), -1.0));
  const auto cell = [&](int x, int y) -> double& { return v.matrix[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)]; };
  const auto lower = [](double& slot, double ratio) { slot = slot < 0 ? ratio : std::min(slot, ratio); };
  FindingSet found;

  // Host phase: each host against the median of all hosts.
  for (const auto& [test, groups] : figures_of(measurements, "host")) {
    std::vector<Figure> all;
    for (const auto& [key, figure] : groups) all.push_back(figure);
    const Figure reference = median_figure(all);
    for (const auto& [key, figure] : groups) {
      const int host = key.first.front();
      const double ratio = reference.median > 0 ? figure.median / reference.median : 1;
      lower(cell(host, host), ratio);
      if (!below(figure, reference, threshold)) continue;
      found.add(found.at("host", {host}, -1, layout), ratio,
                test + " within the host: " + gbps(figure.median) + ", " + share(ratio) + " the hosts' median " +
                    gbps(reference.median));
    }
  }

  // Pairs phase: hosts slow with most partners; then pairs whose hosts are fine elsewhere.
  std::map<std::string, PairsJudgement> pair_tests;
  for (const auto& [test, groups] : figures_of(measurements, "pairs")) {
    const PairsJudgement j = judge_pairs(hosts, pair_figures(groups, -1), threshold);
    for (const auto& [pair, ratio] : j.ratio) {
      lower(cell(pair.a, pair.b), ratio);
      lower(cell(pair.b, pair.a), ratio);
    }
    for (int host = 0; host < hosts; ++host) {
      if (!j.host_low(host)) continue;
      const double worst = j.worst_of_host(host);
      found.add(found.at("host", {host}, -1, layout), worst,
                test + " across hosts: slow with " + std::to_string(j.low_of_host[static_cast<std::size_t>(host)]) +
                    " of " + std::to_string(j.pairs_of_host[static_cast<std::size_t>(host)]) + " partners (" +
                    partner_list(layout, host, j.low) + "), down to " + share(worst) + " the reference " +
                    gbps(j.reference.median));
    }
    pair_tests.emplace(test, j);
  }
  for (const auto& [test, j] : pair_tests) {
    for (const HostPair& pair : j.low) {
      if (found.has("host", {pair.a}) || found.has("host", {pair.b})) continue;  // the host explains it
      const double ratio = j.ratio.at(pair);
      found.add(found.at("link", {pair.a, pair.b}, -1, layout), ratio,
                test + ": " + share(ratio) + " the reference " + gbps(j.reference.median) + "; " +
                    layout.hosts[static_cast<std::size_t>(pair.a)] + " and " +
                    layout.hosts[static_cast<std::size_t>(pair.b)] + " are fine with their other partners");
    }
  }

  // Rails phase: per rail, the same judgement; what a host or link already explains is left out.
  for (const auto& [test, groups] : figures_of(measurements, "rails")) {
    std::set<int> rails;
    for (const auto& [key, figure] : groups) rails.insert(key.second);
    for (const int rail : rails) {
      const PairsJudgement j = judge_pairs(hosts, pair_figures(groups, rail), threshold);
      const std::string where = test + " on rail " + std::to_string(rail);
      for (int host = 0; host < hosts; ++host) {
        if (!j.host_low(host) || found.has("host", {host})) continue;
        found.add(found.at("nic", {host}, rail, layout), j.worst_of_host(host),
                  where + ": slow with " + std::to_string(j.low_of_host[static_cast<std::size_t>(host)]) + " of " +
                      std::to_string(j.pairs_of_host[static_cast<std::size_t>(host)]) + " partners (" +
                      partner_list(layout, host, j.low) + ")");
      }
      for (const HostPair& pair : j.low) {
        if (found.has("host", {pair.a}) || found.has("host", {pair.b}) || found.has("link", {pair.a, pair.b}) ||
            found.has("nic", {pair.a}, rail) || found.has("nic", {pair.b}, rail)) {
          continue;
        }
        const double ratio = j.ratio.at(pair);
        found.add(found.at("rail", {pair.a, pair.b}, rail, layout), ratio,
                  where + ": " + share(ratio) + " the reference " + gbps(j.reference.median));
      }
    }
  }
  v.findings = found.ordered();
  return v;
}

}  // namespace ncclsweep::locate
