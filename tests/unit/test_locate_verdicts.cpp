// locate's verdicts on figures with noise (locate/verdicts.hpp, pair_graph.hpp, noise.hpp):
// which fault model explains the pairs (a slow host lowers all its pairs, a slow link one),
// how far below its reference a subject must sit given the peers' spread and the repeats,
// and real runs of the emulated cluster (tests/data/locate/bed-*) judged again.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "catch_compat.hpp"
#include "core/collective.hpp"
#include "locate/locate_results.hpp"
#include "locate/noise.hpp"
#include "locate/pair_graph.hpp"
#include "locate/tournament.hpp"
#include "locate/verdicts.hpp"
#include "unit/locate_records.hpp"

using namespace ncclsweep;
using namespace ncclsweep::locate;
using ncclsweep::testing::locate_record;

namespace {

// Host and pairs phases of `hosts` hosts of 2 ranks: each figure is `busbw(hosts)` times
// exp(noise x z) per repeat (z standard normal, seeded), 3 repeats.
template <typename Busbw>
std::vector<MeasurementRecord> noisy_run(int hosts, Busbw busbw, double noise, unsigned seed, int repeats = 3) {
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<MeasurementRecord> out;
  const auto add = [&](LocatePhase phase, std::vector<int> group, int round, const char* collective) {
    for (int r = 0; r < repeats; ++r) {
      out.push_back(locate_record(phase, group, round, collective, r, busbw(group) * std::exp(noise * normal(random))));
    }
  };
  for (int h = 0; h < hosts; ++h) {
    for (const char* c : {"all_reduce", "all_gather", "sendrecv"}) add(LocatePhase::host, {h}, 0, c);
  }
  const auto rounds = round_robin(hosts);
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (const HostPair& p : rounds[r].pairs) {
      for (const char* c : {"all_gather", "sendrecv"}) add(LocatePhase::pairs, {p.a, p.b}, static_cast<int>(r) + 1, c);
    }
  }
  return out;
}

bool has_host(const std::vector<int>& hosts, int host) { return std::find(hosts.begin(), hosts.end(), host) != hosts.end(); }

std::string named(const HostLayout& layout, const std::vector<Finding>& findings) {
  std::string text;
  for (const Finding& f : findings) {
    text += (text.empty() ? "" : "; ") + std::string(name_of(f.kind));
    for (std::size_t i = 0; i < f.hosts.size(); ++i) text += (i ? "," : " ") + layout.hosts[static_cast<std::size_t>(f.hosts[i])];
  }
  return text;
}

Verdicts judged_again(const std::string& name, LocateResults* results = nullptr) {
  LocateResults r = read_locate_results(std::string(NCCLSWEEP_TEST_DATA) + "/locate/" + name);
  const Verdicts v = judge(layout_from_hosts(r.document.rank_hosts), r.measurements, r.document.options.threshold);
  if (results) *results = std::move(r);
  return v;
}

}  // namespace

TEST_CASE("two slow hosts are both named, and their healthy partners are not") {
  // A pair runs at its slower host's pace: h0-h1 reads 0.5, not 0.25, and h2, slow with
  // two of its three partners, is slow with no healthy one.
  const HostLayout layout = uniform_layout(6, 2);
  const Verdicts v = judge(layout, noisy_run(6, [](const std::vector<int>& h) {
                             return h.size() == 2 && (has_host(h, 0) || has_host(h, 1)) ? 5.0 : 10.0;
                           }, 0.01, 1), 0.8);
  CHECK(named(layout, v.findings) == "host host0; host host1");
  CHECK(v.unresolved.empty());
}

TEST_CASE("a slow host and a slow link elsewhere are each named as what they are") {
  const HostLayout layout = uniform_layout(6, 2);
  const Verdicts v = judge(layout, noisy_run(6, [](const std::vector<int>& h) {
                             if (h.size() != 2) return 10.0;
                             if (has_host(h, 4)) return 3.0;
                             return h == std::vector<int>{1, 2} ? 2.0 : 10.0;
                           }, 0.01, 2), 0.8);
  CHECK(named(layout, v.findings) == "host host4; link host1,host2");
}

TEST_CASE("a link slow beyond its slow host is named beside the host") {
  // h3 at 0.5x with everyone, and 0.1x with h0: the link is slow beyond what h3 explains.
  const HostLayout layout = uniform_layout(5, 2);
  const Verdicts v = judge(layout, noisy_run(5, [](const std::vector<int>& h) {
                             if (h.size() != 2) return 10.0;
                             if (h == std::vector<int>{0, 3}) return 1.0;
                             return has_host(h, 3) ? 5.0 : 10.0;
                           }, 0.01, 3), 0.8);
  REQUIRE(named(layout, v.findings) == "host host3; link host0,host3");
  CHECK(v.findings[1].ratio == Approx(0.2).epsilon(0.1));  // 0.1x of the level over h3's own 0.5x
  CHECK_THAT(v.findings[1].evidence.front(), ContainsSubstring("beyond host3's own 0.5"));
}

TEST_CASE("a host below the threshold by less than the peers' spread explains is unresolved, not slow") {
  // Hosts scatter by 10% in every test; host 2 sits at 0.8x: below 0.9, but three peers'
  // spread is known too poorly (three degrees of freedom) to tell 0.8x from it.
  const HostLayout layout = uniform_layout(4, 2);
  const double offsets[] = {1.05, 0.98, 0.8, 1.1};
  const Verdicts v = judge(layout, noisy_run(4, [&](const std::vector<int>& h) {
                             return h.size() == 1 ? 10.0 * offsets[h[0]] : 10.0;
                           }, 0.005, 4), 0.9);
  CHECK(v.findings.empty());
  REQUIRE(v.unresolved.size() == 1);
  CHECK(named(layout, v.unresolved) == "host host2");
  CHECK_THAT(v.unresolved[0].evidence.back(), ContainsSubstring("within noise: this run tells a host from noise only below"));
  const auto host_phase = std::find_if(v.resolution.begin(), v.resolution.end(),
                                       [](const Resolution& r) { return r.phase == LocatePhase::host; });
  REQUIRE(host_phase != v.resolution.end());
  CHECK_FALSE(host_phase->resolves(0.9));
  CHECK(host_phase->widths == Approx(4.541));  // Student's t, 3 degrees of freedom
  // The same host among steady peers (1%): slow.
  const Verdicts steady = judge(layout, noisy_run(4, [](const std::vector<int>& h) {
                                  return h.size() == 1 && h[0] == 2 ? 8.0 : 10.0;
                                }, 0.005, 4), 0.9);
  CHECK(named(layout, steady.findings) == "host host2");
}

TEST_CASE("noise widths: a spread of few peers needs more widths, many subjects more too") {
  CHECK(significance_widths(4) == Approx(3.0));
  CHECK(significance_widths(4, 3) == Approx(4.541));
  CHECK(significance_widths(4, 1) > 30);
  CHECK(significance_widths(4, 40) == Approx(3.0));
  CHECK(significance_widths(130816) == Approx(std::sqrt(2 * std::log(130816.0))));
  CHECK(widest({{0.05, 3}, {0.02, 1000}}).freedom == 3);
  CHECK(widest({{0.01, 3}, {0.02, 1000}}).width == Approx(0.02));
  CHECK(spread_of({-1, 1, -2, 2, 100}) == Approx(1.4826 * 2));
  CHECK(upper_median({3, 1}) == Approx(3));
  CHECK(upper_median({3, 1, 2}) == Approx(2));
  CHECK(upper_quartile({1, 2, 3, 4}) == Approx(4));
  CHECK(upper_quartile({1, 2, 3, 4, 5, 6, 7, 8, 9}) == Approx(7));
}

TEST_CASE("a resolution says how much longer repeats tell the threshold, or that none does") {
  const Resolution r{LocatePhase::host, FindingKind::host, 0.1, 3, 1e-3};
  CHECK(r.tells_below() == Approx(std::exp(-0.3)));
  CHECK_FALSE(r.resolves(0.9));
  CHECK(r.resolves(0.7));
  // 0.9 needs a noise of -ln(0.9) / 3 = 0.0351: (0.1 / 0.0351)^2 = 8.1 times longer,
  // twice that for the noise estimate's own error.
  CHECK(r.longer_for(0.9) == Approx(2 * std::pow(0.1 * 3 / -std::log(0.9), 2)));
  CHECK(r.longer_for(0.5) == Approx(1));
  // 0.99 needs less than the least noise width: no length does.
  CHECK(std::isinf(r.longer_for(0.99)));
  Verdicts v;
  v.threshold = 0.99;
  v.resolution = {r};
  REQUIRE(resolution_notes(v, 10).size() == 1);
  CHECK_THAT(resolution_notes(v, 10)[0], ContainsSubstring("no length of repeat tells --threshold 0.99"));
  v.threshold = 0.9;
  CHECK_THAT(resolution_notes(v, 10)[0], ContainsSubstring("(--iters 163)"));
}

TEST_CASE("the pair graph: the healthy level ignores a slow host and a slow link") {
  PairGraphInput in;
  in.nodes = 6;
  in.threshold = 0.9;
  for (int a = 0; a < 6; ++a) {
    for (int b = a + 1; b < 6; ++b) {
      const HostPair p{a, b};
      const double busbw = a == 0 ? 2.0 : p == HostPair{2, 3} ? 1.0 : 10.0;  // h0 slow, link 2-3 slow
      in.tests["sendrecv 1 MiB"][p] = {std::log(busbw), 0, 3, 1e-3};
    }
  }
  // h0's five pairs and the link are 6 of 15; the level is still the healthy pairs' 10.
  const PairGraphVerdicts g = judge_pair_graph(in);
  CHECK(g.level_gbps.at("sendrecv 1 MiB") == Approx(10));
  CHECK(g.nodes[0].state == Judged::slow);
  CHECK(g.nodes[0].share == Approx(0.2));
  for (const int n : {1, 2, 3, 4, 5}) CHECK(g.nodes[static_cast<std::size_t>(n)].state == Judged::fine);
  CHECK(g.pairs.at({2, 3}).state == Judged::slow);
  CHECK(g.pairs.at({2, 3}).beyond == Approx(0.1));
  CHECK(g.pairs.at({0, 1}).state == Judged::fine);  // h0's own
  CHECK(g.pairs.at({0, 1}).share == Approx(0.2));
  CHECK(g.pairs.at({0, 1}).beyond == Approx(1));
}

TEST_CASE("the pair graph: a node slow with every partner beyond the pairs' noise is that node, not as many links") {
  // 5 hosts x 1 rank on the cluster bed, h2's link limited by tc: its four pairs at 0.03,
  // the healthy pairs 0.5-3x apart (ranks sharing 2 cores), so the nodes' own spread told a
  // node from noise only below 0.002 and each of h2's pairs was named a slow link.
  PairGraphInput in;
  in.nodes = 5;
  in.threshold = 0.15;
  const std::map<HostPair, double> healthy{{{0, 1}, 1.0}, {{0, 3}, 3.0}, {{0, 4}, 0.6},
                                           {{1, 3}, 0.6}, {{1, 4}, 0.5}, {{3, 4}, 0.6}};
  for (int a = 0; a < 5; ++a) {
    for (int b = a + 1; b < 5; ++b) {
      const HostPair p{a, b};
      const double busbw = a == 2 || b == 2 ? 0.03 : healthy.at(p);
      in.tests["sendrecv 256 KiB"][p] = {std::log(busbw), 0, 1, 1e-3};
    }
  }
  const PairGraphVerdicts g = judge_pair_graph(in);
  CHECK(std::exp(-g.node_widths * g.node_noise) < g.nodes[2].share);  // the nodes' spread alone: within noise
  CHECK(g.nodes[2].state == Judged::slow);
  CHECK(std::exp(-g.nodes[2].widths * g.nodes[2].noise) > g.nodes[2].share);  // judged at its pairs' noise
  for (const int n : {0, 1, 3, 4}) CHECK(g.nodes[static_cast<std::size_t>(n)].state == Judged::fine);
  for (const auto& [pair, p] : g.pairs) CHECK(p.state == Judged::fine);  // h2 explains its own pairs
}

TEST_CASE("half the hosts slow: the level their healthy partners reach is the healthy one") {
  // Two slow hosts of four: five of six pairs and every host's median pair are slow, so
  // the median level is theirs; only h2-h3 shows what the fabric reaches.
  const HostLayout layout = uniform_layout(4, 2);
  const Verdicts v = judge(layout, noisy_run(4, [](const std::vector<int>& h) {
                             return h.size() == 2 && (has_host(h, 0) || has_host(h, 1)) ? 1.0 : 10.0;
                           }, 0.01, 5), 0.8);
  CHECK(named(layout, v.findings) == "host host0; host host1");
  CHECK(v.unresolved.empty());
  CHECK(v.matrix[2][3] == Approx(1).epsilon(0.05));
  CHECK(v.matrix[0][2] == Approx(0.1).epsilon(0.05));
}

TEST_CASE("a slow host and a slow link between the other hosts of four are each named") {
  // Four of six pairs slow (h0's three and h2-h3): the median is theirs.
  const HostLayout layout = uniform_layout(4, 2);
  const Verdicts v = judge(layout, noisy_run(4, [](const std::vector<int>& h) {
                             if (h.size() != 2) return 10.0;
                             return has_host(h, 0) || h == std::vector<int>{2, 3} ? 1.0 : 10.0;
                           }, 0.01, 6), 0.8);
  CHECK(named(layout, v.findings) == "host host0; link host2,host3");
  CHECK(v.unresolved.empty());
}

TEST_CASE("two racks whose pairs across are slow: the links across, no host") {
  // Hosts 0-3 and 4-7: each host's pairs across (4 of 7) are slow, those within fast.
  const HostLayout layout = uniform_layout(8, 2);
  const auto rack = [](int host) { return host / 4; };
  const Verdicts v = judge(layout, noisy_run(8, [&](const std::vector<int>& h) {
                             return h.size() == 2 && rack(h[0]) != rack(h[1]) ? 2.0 : 10.0;
                           }, 0.01, 7), 0.8);
  REQUIRE(v.findings.size() == 16);
  for (const Finding& f : v.findings) {
    CHECK(f.kind == FindingKind::link);
    CHECK(rack(f.hosts.at(0)) != rack(f.hosts.at(1)));
  }
  CHECK(v.unresolved.empty());
}

TEST_CASE("a few pairs faster by their place, most hosts below them: the median stays the level") {
  // Pairs 0-1, 2-3, 4-5 and 6-7 twice as fast as the rest (hosts sharing a switch, say):
  // against them every host would be slow with its better partners, so they are not the level.
  const HostLayout layout = uniform_layout(8, 2);
  const Verdicts v = judge(layout, noisy_run(8, [](const std::vector<int>& h) {
                             return h.size() == 2 && h[0] / 2 == h[1] / 2 ? 20.0 : 10.0;
                           }, 0.01, 8), 0.8);
  CHECK(v.findings.empty());
  CHECK(v.unresolved.empty());
  CHECK(v.matrix[0][2] == Approx(1).epsilon(0.05));
}

TEST_CASE("real tc faults on the emulated cluster: two of four hosts limited are both named") {
  // Judged before as nothing slow: h3-h4 read 23x the level of the other five pairs.
  LocateResults r;
  const Verdicts v = judged_again("bed-links-h1-h2", &r);
  CHECK(named(layout_from_hosts(r.document.rank_hosts), v.findings) == "host h1; host h2");
}

TEST_CASE("real tc faults on the emulated cluster: a limited host and a limited pair of two others") {
  // Judged before as nothing slow: four of six pairs limited.
  LocateResults r;
  const Verdicts v = judged_again("bed-link-h1-pair-h3-h4", &r);
  CHECK(named(layout_from_hosts(r.document.rank_hosts), v.findings) == "host h1; link h3,h4");
}

TEST_CASE("real tc faults on the emulated cluster: a limited link between two hosts is that link, not four slow hosts") {
  // Judged before as four slow hosts (0.31-0.60x) and no link.
  LocateResults r;
  const Verdicts v = judged_again("bed-pair-h1-h2", &r);
  const HostLayout layout = layout_from_hosts(r.document.rank_hosts);
  CHECK(named(layout, v.findings) == "link h1,h2");
  CHECK(v.findings.at(0).ratio < 0.1);
  for (const Finding& f : v.unresolved) CHECK(f.kind != FindingKind::host);
}

TEST_CASE("real tc faults on the emulated cluster: a limited host link is that host, and only it") {
  LocateResults r;
  const Verdicts v = judged_again("bed-link-h3", &r);
  CHECK(named(layout_from_hosts(r.document.rank_hosts), v.findings) == "host h3");
}

TEST_CASE("real clean runs on the emulated cluster: too short for 0.9, they name no host and say so") {
  for (const char* name : {"bed-clean-short", "bed-clean-short-2"}) {
    INFO(name);
    LocateResults r;
    const Verdicts v = judged_again(name, &r);
    CHECK(v.findings.empty());  // judged before as two and four slow hosts
    const std::vector<std::string> notes = resolution_notes(v, r.document.options.iters);
    REQUIRE_FALSE(notes.empty());
    CHECK_THAT(notes.front(), ContainsSubstring("--threshold 0.90 needs about"));
  }
  // With the CPU tests' options (five passes, 0.25): nothing below the threshold at all.
  CHECK(judged_again("bed-clean-passes").all_clear());
}
