// ncclsweep locate's pure parts: the tournament, the splits, the verdicts, the testing
// aid's text, the time estimate and the records' round trip.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "catch_compat.hpp"
#include "read_file.hpp"
#include "core/collective.hpp"
#include "locate/locate_fault.hpp"
#include "locate/locate_plan.hpp"
#include "locate/locate_reference.hpp"
#include "locate/locate_results.hpp"
#include "locate/locate_record.hpp"
#include "locate/tournament.hpp"
#include "locate/verdicts.hpp"
#include "measure/fixed_test.hpp"
#include "unit/locate_records.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
using namespace ncclsweep::locate;
using ncclsweep::testing::locate_record;

namespace {

// Every host of a round in at most one pair, idle hosts in none; returns the hosts touched.
void check_disjoint(const Round& round, int hosts) {
  std::multiset<int> seen;
  for (const HostPair& p : round.pairs) {
    CHECK(p.a < p.b);
    CHECK(p.a >= 0);
    CHECK(p.b < hosts);
    seen.insert(p.a);
    seen.insert(p.b);
  }
  for (const int h : round.idle) seen.insert(h);
  for (int h = 0; h < hosts; ++h) CHECK(seen.count(h) == 1);
}

// Synthetic measurements: host phase and pairs phase of `layout`, each figure from
// `busbw(hosts)` and three repeats around it.
template <typename Busbw>
std::vector<MeasurementRecord> synthetic(const HostLayout& layout, Busbw busbw, std::vector<double> wobble = {0.99, 1.0, 1.01}) {
  std::vector<MeasurementRecord> out;
  const auto add = [&](LocatePhase phase, std::vector<int> hosts, int round, const std::string& collective) {
    for (std::size_t r = 0; r < wobble.size(); ++r) {
      out.push_back(locate_record(phase, hosts, round, collective, static_cast<int>(r), busbw(hosts) * wobble[r]));
    }
  };
  for (int h = 0; h < layout.host_count(); ++h) add(LocatePhase::host, {h}, 0, "all_reduce");
  const auto rounds = round_robin(layout.host_count());
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (const HostPair& p : rounds[r].pairs) {
      add(LocatePhase::pairs, {p.a, p.b}, static_cast<int>(r) + 1, "all_gather");
      add(LocatePhase::pairs, {p.a, p.b}, static_cast<int>(r) + 1, "sendrecv");
    }
  }
  return out;
}

bool touches(const std::vector<int>& hosts, int host) {
  return std::find(hosts.begin(), hosts.end(), host) != hosts.end();
}

}  // namespace

TEST_CASE("the round robin meets every pair of hosts exactly once, in disjoint rounds") {
  for (int hosts = 2; hosts <= 17; ++hosts) {
    INFO(hosts << " hosts");
    const auto rounds = round_robin(hosts);
    CHECK(rounds.size() == static_cast<std::size_t>(hosts % 2 == 0 ? hosts - 1 : hosts));
    std::map<HostPair, int> met;
    std::map<int, int> byes;
    for (const Round& round : rounds) {
      check_disjoint(round, hosts);
      CHECK(round.pairs.size() == static_cast<std::size_t>(hosts / 2));
      CHECK(round.idle.size() == static_cast<std::size_t>(hosts % 2));
      for (const HostPair& p : round.pairs) ++met[p];
      for (const int h : round.idle) ++byes[h];
    }
    CHECK(met.size() == static_cast<std::size_t>(hosts * (hosts - 1) / 2));
    for (const auto& [pair, times] : met) CHECK(times == 1);
    // An odd count: every host sits out exactly one round.
    if (hosts % 2 == 1) {
      CHECK(byes.size() == static_cast<std::size_t>(hosts));
      for (const auto& [host, times] : byes) CHECK(times == 1);
    }
  }
  CHECK(round_robin(1).empty());
  CHECK(round_robin(0).empty());
}

TEST_CASE("the ring screen pairs each host with its two neighbours in two rounds, three when odd") {
  const auto four = ring_rounds(4);
  REQUIRE(four.size() == 2);
  CHECK(four[0].pairs == std::vector<HostPair>{{0, 1}, {2, 3}});
  CHECK(four[1].pairs == std::vector<HostPair>{{0, 3}, {1, 2}});
  CHECK(ring_rounds(2).size() == 1);
  for (int hosts = 3; hosts <= 11; ++hosts) {
    INFO(hosts << " hosts");
    const auto rounds = ring_rounds(hosts);
    CHECK(rounds.size() == (hosts % 2 == 0 ? 2u : 3u));
    std::set<HostPair> met;
    for (const Round& round : rounds) {
      check_disjoint(round, hosts);
      for (const HostPair& p : round.pairs) CHECK(met.insert(p).second);
    }
    CHECK(met.size() == static_cast<std::size_t>(hosts));
    for (int h = 0; h < hosts; ++h) {
      const int next = (h + 1) % hosts;
      CHECK(met.count({std::min(h, next), std::max(h, next)}) == 1);
    }
  }
}

TEST_CASE("the ranks of a host are found from their host names, in rank order") {
  const HostLayout layout = layout_from_hosts({"b", "b", "a", "a", "c", "b"});
  CHECK(layout.hosts == std::vector<std::string>{"b", "a", "c"});
  CHECK(layout.host_ranks[0] == std::vector<int>{0, 1, 5});
  CHECK(layout.host_of_rank == std::vector<int>{0, 0, 1, 1, 2, 0});
  CHECK(layout.local_index(5) == 2);
  CHECK(layout.local_index(3) == 1);
}

TEST_CASE("each step's groups split the world: hosts, pairs of hosts, rails") {
  const HostLayout layout = uniform_layout(4, 2);
  const Step hosts = host_step(layout);
  REQUIRE(hosts.groups.size() == 4);
  CHECK(hosts.groups[2].ranks == std::vector<int>{4, 5});
  CHECK(hosts.color_of_rank == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});

  const Round round{{{0, 3}, {1, 2}}, {}};
  const Step pairs = pairs_step(layout, round, 1);
  REQUIRE(pairs.groups.size() == 2);
  CHECK(pairs.groups[0].ranks == std::vector<int>{0, 1, 6, 7});
  CHECK(pairs.groups[1].ranks == std::vector<int>{2, 3, 4, 5});
  CHECK(pairs.color_of_rank == std::vector<int>{0, 0, 1, 1, 1, 1, 0, 0});

  const Step rails = rails_step(layout, round, 1);
  REQUIRE(rails.groups.size() == 4);
  CHECK(rails.groups[0].ranks == std::vector<int>{0, 6});
  CHECK(rails.groups[1].ranks == std::vector<int>{1, 7});
  CHECK(rails.groups[1].rail == 1);

  // A bye: the idle host's ranks run alone, unmeasured.
  const Step odd = pairs_step(uniform_layout(3, 2), round_robin(3)[0], 1);
  REQUIRE(odd.groups.size() == 2);
  CHECK_FALSE(odd.groups[1].measured);
  for (const int color : odd.color_of_rank) CHECK(color >= 0);

  // One rank per host: nothing to measure within a host.
  for (const Group& g : host_step(uniform_layout(3, 1)).groups) CHECK_FALSE(g.measured);
}

TEST_CASE("the gpus steps pair each GPU with both neighbours on its host, two ranks a group") {
  // Host a has 4 ranks, host b 3 (odd: three rounds), host c 2 (one pair: not measured).
  const HostLayout layout = layout_from_hosts({"a", "a", "a", "a", "b", "b", "b", "c", "c"});
  const std::vector<Step> steps = gpu_pair_steps(layout);
  REQUIRE(steps.size() == 3);
  std::map<int, std::multiset<std::pair<int, int>>> pairs_of_host;
  for (const Step& step : steps) {
    CHECK(step.phase == LocatePhase::gpus);
    for (const int color : step.color_of_rank) CHECK(color >= 0);  // every rank in a group
    for (const Group& g : step.groups) {
      if (!g.measured) {
        CHECK(g.ranks.size() == 1);
        continue;
      }
      REQUIRE(g.ranks.size() == 2);
      CHECK(g.hosts.size() == 1);
      pairs_of_host[g.hosts[0]].insert({layout.local_index(g.ranks[0]), layout.local_index(g.ranks[1])});
    }
  }
  CHECK(pairs_of_host[0] == std::multiset<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {0, 3}});
  CHECK(pairs_of_host[1] == std::multiset<std::pair<int, int>>{{0, 1}, {1, 2}, {0, 2}});
  CHECK(pairs_of_host.count(2) == 0);
  CHECK(gpu_pair_steps(uniform_layout(4, 2)).empty());
}

TEST_CASE("a slow host is named, and none of its pairs as a link") {
  for (const int hosts : {3, 4, 5, 8}) {
    INFO(hosts << " hosts");
    const HostLayout layout = uniform_layout(hosts, 2);
    const int slow = 1;
    const Verdicts v = judge(layout, synthetic(layout, [&](const std::vector<int>& h) {
                               return touches(h, slow) ? 3.0 : 10.0;
                             }), 0.8);
    REQUIRE(v.findings.size() == 1);
    CHECK(v.findings[0].kind == FindingKind::host);
    CHECK(v.findings[0].hosts == std::vector<int>{slow});
    CHECK(v.findings[0].ranks == std::vector<int>{2, 3});
    CHECK(v.findings[0].ratio == Approx(0.3).epsilon(0.05));
    CHECK(v.anything_slow());
    CHECK(v.matrix[1][1] == Approx(0.3).epsilon(0.05));
    CHECK(v.matrix[0][2] == Approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("of two hosts, one slow in its own numbers is named: it is judged against the other host alone") {
  // 0.7x the other host; inside their median (the mean of two) it read 0.82x and passed 0.8.
  const HostLayout layout = uniform_layout(2, 2);
  const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                             return h == std::vector<int>{1} ? 7.0 : 10.0;
                           }), 0.8);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::host);
  CHECK(v.findings[0].hosts == std::vector<int>{1});
  CHECK(v.findings[0].ratio == Approx(0.7).epsilon(0.05));
  CHECK_THAT(v.findings[0].evidence.front(), ContainsSubstring("the other host"));
  CHECK(v.matrix[0][0] == Approx(10.0 / 7.0).epsilon(0.05));  // the fast host, against the slow one
}

TEST_CASE("a host slow only across hosts is found by its row of the pair matrix") {
  const HostLayout layout = uniform_layout(4, 2);
  const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                             return h.size() == 2 && touches(h, 3) ? 4.0 : 10.0;  // its own numbers are fine
                           }), 0.8);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::host);
  CHECK(v.findings[0].hosts == std::vector<int>{3});
}

TEST_CASE("a slow pair of healthy hosts is named as a link") {
  for (const int hosts : {3, 4, 6}) {
    INFO(hosts << " hosts");
    const HostLayout layout = uniform_layout(hosts, 2);
    const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                               return h == std::vector<int>{0, 2} ? 5.0 : 10.0;
                             }), 0.8);
    REQUIRE(v.findings.size() == 1);
    CHECK(v.findings[0].kind == FindingKind::link);
    CHECK(v.findings[0].hosts == std::vector<int>{0, 2});
    CHECK(v.findings[0].ranks == std::vector<int>{0, 1, 4, 5});
    CHECK(v.findings[0].ratio == Approx(0.5).epsilon(0.05));
  }
}

TEST_CASE("a host slow with every partner, though at the threshold in one test, is the host, not a link") {
  // As an oversubscribed CPU measured it: h2 reads 0.18x with each partner in all_gather
  // and 0.24-0.27x in sendrecv against 0.25, so only h2-h3 is low in both tests. That
  // pair was named a link whose hosts "are fine with their other partners".
  const HostLayout layout = uniform_layout(4, 2);
  std::vector<MeasurementRecord> ms = synthetic(layout, [](const std::vector<int>& h) { return touches(h, 2) ? 3.0 : 10.0; });
  for (MeasurementRecord& m : ms) {
    if (m.locate->phase != LocatePhase::pairs || !touches(m.locate->hosts, 2)) continue;
    const bool sendrecv = m.collective->name == "sendrecv";
    m.busbw_gbps = (!sendrecv ? 1.8 : m.locate->hosts == std::vector<int>{2, 3} ? 2.4 : 2.7) * (m.busbw_gbps / 3.0);
  }
  const Verdicts v = judge(layout, ms, 0.25);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::host);
  CHECK(v.findings[0].hosts == std::vector<int>{2});
  // What it reaches with its better partners, over most of its tests: between its
  // all_gather (0.18x) and its sendrecv (0.24-0.27x).
  CHECK(v.findings[0].ratio > 0.17);
  CHECK(v.findings[0].ratio < 0.28);
}

TEST_CASE("a link's evidence names the other partners its hosts are slow with too") {
  // h0 is slow with h2 and h3, fine with its three other partners: two links, and neither
  // may say its hosts are fine elsewhere.
  const HostLayout layout = uniform_layout(6, 2);
  const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                             return h == std::vector<int>{0, 2} || h == std::vector<int>{0, 3} ? 4.0 : 10.0;
                           }), 0.8);
  REQUIRE(v.findings.size() == 2);
  for (const Finding& f : v.findings) {
    CHECK(f.kind == FindingKind::link);
    REQUIRE_FALSE(f.evidence.empty());
    for (const std::string& line : f.evidence) CHECK_THAT(line, !ContainsSubstring("fine with"));
  }
  CHECK_THAT(v.findings[0].evidence.front(), ContainsSubstring("host0 is also slow with host3"));
  CHECK_THAT(v.findings[1].evidence.front(), ContainsSubstring("host0 is also slow with host2"));
}

TEST_CASE("a link's evidence leaves out a partner already named as a slow host") {
  // h3 is slow with everyone and named; h0-h2 is a slow link. That h0 and h2 are slow with
  // h3 too is h3's doing: the link's hosts are fine with their other partners.
  const HostLayout layout = uniform_layout(6, 2);
  const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                             if (touches(h, 3)) return 3.0;
                             return h == std::vector<int>{0, 2} ? 4.0 : 10.0;
                           }), 0.8);
  REQUIRE(v.findings.size() == 2);
  CHECK(v.findings[0].kind == FindingKind::host);
  CHECK(v.findings[0].hosts == std::vector<int>{3});
  CHECK(v.findings[1].kind == FindingKind::link);
  CHECK(v.findings[1].hosts == std::vector<int>{0, 2});
  for (const std::string& line : v.findings[1].evidence) {
    CHECK_THAT(line, !ContainsSubstring("also slow with host3"));
    if (line.find("across hosts") == std::string::npos) continue;  // the line on noise
    CHECK_THAT(line, ContainsSubstring("host0 and host2 are fine with their other partners"));
  }
}

TEST_CASE("healthy hosts within the noise are not named") {
  const HostLayout layout = uniform_layout(6, 2);
  // Up to 18% apart, below a 0.8 threshold never.
  const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                             double x = 10;
                             for (const int host : h) x *= 1 - 0.02 * host;
                             return x;
                           }), 0.8);
  CHECK(v.findings.empty());
  CHECK_FALSE(v.anything_slow());
}

TEST_CASE("a reference figure is the median of its repeats with half their range as its band") {
  CHECK(figure_of({1, 2, 3}).band == Approx(1.0));           // half the range
  CHECK(figure_of({10, 10, 10}).band == Approx(0.3));        // at least 3%
  // From five repeats the lowest and highest are left out of the band, not the median.
  CHECK(figure_of({1, 9, 10, 11, 30}).median == Approx(10));
  CHECK(figure_of({1, 9, 10, 11, 30}).band == Approx(1.0));
  CHECK(figure_of({30, 1, 11, 9}).band == Approx(14.5));     // four: the whole range
}

TEST_CASE("one slow rail of a pair is named as that rail") {
  const HostLayout layout = uniform_layout(4, 2);
  std::vector<MeasurementRecord> ms = synthetic(layout, [](const std::vector<int>&) { return 10.0; });
  for (const HostPair& p : std::vector<HostPair>{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}) {
    for (int rail = 0; rail < 2; ++rail) {
      for (int r = 0; r < 3; ++r) {
        const double busbw = (p == HostPair{1, 3} && rail == 1 ? 4.0 : 10.0) * (1 + 0.01 * r);
        ms.push_back(locate_record(LocatePhase::rails, {p.a, p.b}, 0, "sendrecv", r, busbw, rail));
      }
    }
  }
  const Verdicts v = judge(layout, ms, 0.8);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::rail);
  CHECK(v.findings[0].rail == 1);
  CHECK(v.findings[0].ranks == std::vector<int>{3, 7});
}

TEST_CASE("the slow-down aid slows every group of a rank, or every group across a link") {
  const SlowFault rank = parse_slow_fault("3:slow=4");
  CHECK(rank.rank == 3);
  CHECK(rank.factor == Approx(4));
  // All ranks of a group that holds rank 3 wait alike; groups without it do not.
  CHECK(slowdown_for(rank, {2, 3}, {"h1", "h1"}) == Approx(4));
  CHECK(slowdown_for(rank, {0, 1, 2, 3}, {"h0", "h0", "h1", "h1"}) == Approx(4));
  CHECK(slowdown_for(rank, {0, 1}, {"h0", "h0"}) == Approx(1));
  const SlowFault link = parse_slow_fault("link=h0,h2:slow=2");
  CHECK(link.host_a == "h0");
  CHECK(link.host_b == "h2");
  CHECK(slowdown_for(link, {0, 1, 4, 5}, {"h0", "h0", "h2", "h2"}) == Approx(2));
  CHECK(slowdown_for(link, {1, 5}, {"h0", "h2"}) == Approx(2));  // a rail
  // Either host without the other: its own links are fine.
  CHECK(slowdown_for(link, {0, 1, 2, 3}, {"h0", "h0", "h1", "h1"}) == Approx(1));
  CHECK(slowdown_for(link, {4, 5, 6, 7}, {"h2", "h2", "h3", "h3"}) == Approx(1));
  CHECK(slowdown_for(link, {0, 1}, {"h0", "h0"}) == Approx(1));
  // A GPU pair: only the group of exactly those two ranks, not the host's group of all.
  const SlowFault pair = parse_slow_fault("ranks=2,1:slow=3");
  CHECK(pair.pair == std::vector<int>{1, 2});
  CHECK(slowdown_for(pair, {1, 2}, {"h0", "h0"}) == Approx(3));
  CHECK(slowdown_for(pair, {0, 1, 2, 3}, {"h0", "h0", "h0", "h0"}) == Approx(1));
  CHECK(slowdown_for(pair, {0, 1}, {"h0", "h0"}) == Approx(1));
  CHECK_FALSE(SlowFault{}.active());
  for (const char* bad : {"", "3", "3:sleep=1", "3:slow=", "3:slow=0.5", "3:slow=2.5", "3:slow=abc", "x:slow=2", "link=h0:slow=2",
                          "link=h0,h0:slow=2", "link=,h1:slow=2", ":slow=2", "ranks=1:slow=2", "ranks=1,1:slow=2",
                          "ranks=1,x:slow=2"}) {
    INFO(bad);
    CHECK_THAT(usage_error_text([&] { parse_slow_fault(bad); }), ContainsSubstring("--inject-fault"));
  }
}

TEST_CASE("the time estimate counts H-1 rounds and grows with them") {
  LocateOptions options;
  options.sizes = {256 << 20};
  const LocateEstimate e64 = estimate_locate(std::vector<int>(64, 8), options, 100e9);
  CHECK(e64.rounds == 63);
  CHECK(e64.steps == 1 + 2 + 63);  // host, the two gpus rounds of 8 GPUs, the pairs rounds
  CHECK(e64.per_round_s > 0);
  CHECK(e64.total_s() == Approx(e64.launch_s + e64.splits_s + e64.collectives_s + e64.coordination_s));
  // Host: 3 tests; gpus: 8 neighbour pairs per host, 1 test; pairs: 32 disjoint pairs
  // per round, 2 tests; 3 repeats each.
  CHECK(e64.measurements == 64 * 3 * 3 + 64 * 8 * 1 * 3 + 63 * 32 * 2 * 3);
  options.pairs = PairSchedule::ring;
  const LocateEstimate ring = estimate_locate(std::vector<int>(64, 8), options, 100e9);
  CHECK(ring.rounds == 2);
  CHECK(ring.steps == 1 + 2 + 2);
  CHECK(ring.total_s() < e64.total_s() / 5);
  // A pair round at 256 MiB is at least its data over the bus bandwidth, per timed call.
  const double calls = options.warmup + options.repeats * options.iters;
  CHECK(e64.per_round_s > calls * (256.0 * (1 << 20)) * collective("all_gather").busbw_factor(16) / 100e9);
}

TEST_CASE("a split costs its group's init and an exchange over the world: 512 hosts of 8 take under ten minutes") {
  LocateOptions options;
  options.sizes = {64 << 20, 256 << 20};  // the defaults
  const LocateEstimate e512 = estimate_locate(std::vector<int>(512, 8), options, 100e9);
  CHECK(e512.rounds == 511);
  CHECK(e512.total_s() < 600);
  // A pairs round's split: the init of its 16 ranks, and the colours of all 4096.
  CHECK(e512.per_split_s == Approx(0.1 + 16 * 1e-3 + 4096 * 50e-6));
  // H-1 rounds, each split's exchange growing with the world: 8 times the hosts cost more
  // than 8 times as long, the collectives of a round do not grow.
  const LocateEstimate e4096 = estimate_locate(std::vector<int>(4096, 8), options, 100e9);
  CHECK(e4096.rounds == 4095);
  CHECK(e4096.total_s() > 8 * e512.total_s());
  CHECK(e4096.collectives_s / e4096.rounds == Approx(e512.collectives_s / e512.rounds).epsilon(0.05));
}

TEST_CASE("the estimate counts what plan_steps would build, without building it") {
  LocateOptions options;
  options.sizes = {1 << 20};
  for (const PairSchedule pairs : {PairSchedule::all, PairSchedule::ring}) {
    for (const bool rails : {false, true}) {
      options.pairs = pairs;
      options.by_rail = rails;
      for (int hosts = 1; hosts <= 7; ++hosts) {
        for (int per_host = 1; per_host <= 4; ++per_host) {
          INFO(name_of(pairs) << " rails " << rails << " " << hosts << " x " << per_host);
          const HostLayout layout = uniform_layout(hosts, per_host);
          long long measured = 0;
          int steps = 0;
          for (const Step& step : plan_steps(layout, options)) {
            ++steps;
            long long groups = 0;
            for (const Group& g : step.groups) groups += g.measured;
            measured += groups * static_cast<long long>(tests_for(step.phase, options.sizes).size()) * options.repeats;
          }
          const LocateEstimate e = estimate_locate(std::vector<int>(static_cast<std::size_t>(hosts), per_host), options, 100e9);
          CHECK(e.steps == steps * options.passes);
          CHECK(e.measurements == measured * options.passes);
        }
      }
    }
  }
  for (int hosts = 0; hosts <= 41; ++hosts) {
    INFO(hosts << " hosts");
    const auto counted = [](const std::vector<Round>& rounds) {
      std::vector<long long> pairs;
      for (const Round& r : rounds) pairs.push_back(static_cast<long long>(r.pairs.size()));
      return pairs;
    };
    CHECK(round_robin_pairs(hosts) == counted(round_robin(hosts)));
    CHECK(ring_round_pairs(hosts) == counted(ring_rounds(hosts)));
  }
  // The largest allocation the options allow: 10^5 hosts of 1024 ranks, every pair of hosts.
  options.pairs = PairSchedule::all;
  options.by_rail = false;
  const LocateEstimate huge = estimate_locate(std::vector<int>(100000, 1024), options, 100e9);
  CHECK(huge.rounds == 99999 * options.passes);
  const long long per_pass = 100000LL * 3 * options.repeats              // host: 3 tests
                             + 100000LL * 1024 * 1 * options.repeats     // gpus: 1024 neighbour pairs per host
                             + 99999LL * 50000 * 2 * options.repeats;    // pairs: 2 tests
  CHECK(huge.measurements == per_pass * options.passes);
}

TEST_CASE("phases are parsed and unknown ones refused") {
  LocateOptions options;
  set_phases(options, "pairs");
  CHECK_FALSE(options.host_phase);
  CHECK(options.pairs_phase);
  set_phases(options, "host,rails");
  CHECK(options.by_rail);
  CHECK_THAT(usage_error_text([&] { set_phases(options, "host,bogus"); }), ContainsSubstring("bogus"));
}

TEST_CASE("every locate phase is written by its name in records and read back; an unknown one is refused") {
  for (const auto& [phase, name] : kLocatePhaseNames.entries()) {
    const MeasurementRecord m = locate_record(phase, {0}, 0, "sendrecv", 0, 1.0);
    const nlohmann::json j = m;
    CHECK(j.at("locate").at("phase") == std::string(name));
    CHECK(read_locate_record(j).locate->phase == phase);
  }
  nlohmann::json bad = locate_record(LocatePhase::host, {0}, 0, "all_gather", 0, 1.0);
  bad["locate"]["phase"] = "racks";
  CHECK_THROWS_WITH(read_locate_record(bad), ContainsSubstring("unknown locate phase 'racks'"));
  // A run's record is not locate's.
  nlohmann::json run_record = MeasurementRecord{.collective = &ncclsweep::collective("all_gather"),
                                                .dtype = &data_type("float32")};
  CHECK_THROWS_WITH(read_locate_record(run_record), ContainsSubstring("not a locate measurement"));
}

TEST_CASE("a locate record is the records' one JSON form and reads back as written") {
  MeasurementRecord m = fixed_record({&ncclsweep::collective("sendrecv"), 65536}, 2, 1.5e-4, 5, 20);
  m.repeat = 2;
  m.locate = LocatePlace{LocatePhase::rails, 3, {1, 2}, 1, {3, 5}, 2};
  const MeasurementRecord back = read_locate_record(nlohmann::json(m));
  CHECK(back.locate->phase == LocatePhase::rails);
  CHECK(back.locate->round == 3);
  CHECK(back.locate->hosts == std::vector<int>{1, 2});
  CHECK(back.locate->rail == 1);
  CHECK(back.locate->group == std::vector<int>{3, 5});
  CHECK(back.locate->pass == 2);
  CHECK(back.size_bytes == 65536);
  CHECK(back.repeat == 2);
  CHECK(back.call_seconds() == Approx(1.5e-4));
  // busbw by the one formula: sendrecv's factor is 1, so busbw is algbw, bytes / time.
  CHECK(back.busbw_gbps == Approx(65536 / 1.5e-4 / 1e9));
  CHECK(back.iters == 20);
  m.locate->rail = -1;
  CHECK(nlohmann::json(m).at("locate").at("rail").is_null());
  CHECK(read_locate_record(nlohmann::json(m)).locate->rail == -1);
  CHECK(test_of(m) == "sendrecv 64 KiB");
}

TEST_CASE("a locate record in the form written before records were MeasurementRecords reads as the same record") {
  const auto earlier = nlohmann::json::parse(
      R"({"busbw_gbps":0.0983,"bytes":1048576,"collective":"all_reduce","hosts":[0],"pass":2,"phase":"host",)"
      R"("rail":null,"ranks":[0,1],"repeat":1,"round":0,"time_s":0.0106})");
  const MeasurementRecord m = read_locate_record(earlier);
  CHECK(m.locate->phase == LocatePhase::host);
  CHECK(m.locate->hosts == std::vector<int>{0});
  CHECK(m.locate->group == std::vector<int>{0, 1});
  CHECK(m.locate->rail == -1);
  CHECK(m.locate->pass == 2);
  CHECK(collective_name(m) == "all_reduce");
  CHECK(m.size_bytes == 1048576);
  CHECK(m.repeat == 1);
  CHECK(m.ranks == 2);
  CHECK(m.call_seconds() == Approx(0.0106));
  CHECK(m.busbw_gbps == 0.0983);  // as written, not computed again
}

namespace {

// `repeats` measurements of one group and test around `busbw`.
void add_figure(std::vector<MeasurementRecord>& out, LocatePhase phase, std::vector<int> hosts,
                std::vector<int> ranks, const std::string& collective, double busbw) {
  for (const double wobble : {0.99, 1.0, 1.01}) {
    out.push_back(locate_record(phase, hosts, 0, collective, 0, busbw * wobble, -1, ranks));
  }
}

// Host phase of `layout`: the three tests, each host's figure from busbw(host, collective).
template <typename Busbw>
std::vector<MeasurementRecord> host_phase(const HostLayout& layout, Busbw busbw) {
  std::vector<MeasurementRecord> out;
  for (const char* collective : {"all_reduce", "all_gather", "sendrecv"}) {
    for (int h = 0; h < layout.host_count(); ++h) {
      add_figure(out, LocatePhase::host, {h}, layout.host_ranks[static_cast<std::size_t>(h)], collective, busbw(h, collective));
    }
  }
  return out;
}

// The gpus steps of `layout`, each neighbour pair's figure from busbw(host, local a, local b).
template <typename Busbw>
std::vector<MeasurementRecord> gpu_pairs(const HostLayout& layout, Busbw busbw) {
  std::vector<MeasurementRecord> out;
  for (const Step& step : gpu_pair_steps(layout)) {
    for (const Group& g : step.groups) {
      if (!g.measured) continue;
      add_figure(out, LocatePhase::gpus, g.hosts, g.ranks, "sendrecv",
                 busbw(g.hosts[0], layout.local_index(g.ranks[0]), layout.local_index(g.ranks[1])));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a host is named only when it is below in most of its tests") {
  const HostLayout layout = uniform_layout(4, 2);
  // Host 1 far below in one test of three (a burst of load during it): nothing named.
  const Verdicts once = judge(layout, host_phase(layout, [](int h, const std::string& c) {
                                return h == 1 && c == "all_gather" ? 2.0 : 10.0;
                              }), 0.8);
  CHECK(once.findings.empty());
  // In two of three: it is.
  const Verdicts twice = judge(layout, host_phase(layout, [](int h, const std::string& c) {
                                 return h == 1 && c != "sendrecv" ? 2.0 : 10.0;
                               }), 0.8);
  REQUIRE(twice.findings.size() == 1);
  CHECK(twice.findings[0].hosts == std::vector<int>{1});
  // The two tests it was slow in, and how its share stands to the noise.
  REQUIRE(twice.findings[0].evidence.size() == 3);
  CHECK_THAT(twice.findings[0].evidence[0], ContainsSubstring("within the host"));
  CHECK_THAT(twice.findings[0].evidence[1], ContainsSubstring("within the host"));
  CHECK_THAT(twice.findings[0].evidence[2], ContainsSubstring("beyond noise: named below"));
  CHECK(twice.findings[0].ratio == Approx(0.2).epsilon(0.05));
  // The heat map's diagonal: the median of the host's three tests.
  CHECK(twice.matrix[1][1] == Approx(0.2).epsilon(0.05));
  CHECK(once.matrix[1][1] == Approx(1.0).epsilon(0.05));
}

TEST_CASE("judged against a reference, hosts alike are all slow when all are below it") {
  const HostLayout layout = uniform_layout(4, 2);
  const auto measurements = synthetic(layout, [](const std::vector<int>&) { return 10.0; });
  CHECK(judge(layout, measurements, 0.9).findings.empty());  // against each other: nothing
  ReferenceFigures faster;
  faster.source = "ref/dir";
  faster.by_phase[LocatePhase::host]["all_reduce 1 MiB"] = {20.0, 0.6};
  faster.by_phase[LocatePhase::pairs]["all_gather 1 MiB"] = {20.0, 0.6};
  faster.by_phase[LocatePhase::pairs]["sendrecv 1 MiB"] = {20.0, 0.6};
  const Verdicts v = judge(layout, measurements, 0.9, &faster);
  REQUIRE(v.findings.size() == 4);
  for (int h = 0; h < 4; ++h) {
    CHECK(v.findings[static_cast<std::size_t>(h)].kind == FindingKind::host);
    CHECK(v.findings[static_cast<std::size_t>(h)].ratio == Approx(0.5).epsilon(0.05));
  }
  CHECK_THAT(v.findings[0].evidence[0], ContainsSubstring("the reference (ref/dir)"));
  CHECK(v.matrix[0][1] == Approx(0.5).epsilon(0.05));
  // A reference the run matches: nothing, though the threshold is the same.
  ReferenceFigures same = faster;
  for (auto& [phase, tests] : same.by_phase) {
    for (auto& [test, figure] : tests) figure = {10.0, 0.3};
  }
  CHECK(judge(layout, measurements, 0.9, &same).findings.empty());
}

TEST_CASE("with a reference, the one pair of two hosts can be named as a link") {
  // Two hosts: without a reference their pair has nothing to be compared with.
  const HostLayout layout = uniform_layout(2, 2);
  std::vector<MeasurementRecord> ms = host_phase(layout, [](int, const std::string&) { return 10.0; });
  add_figure(ms, LocatePhase::pairs, {0, 1}, {0, 1, 2, 3}, "all_gather", 4.0);
  CHECK(judge(layout, ms, 0.9).findings.empty());
  ReferenceFigures reference;
  reference.source = "earlier";
  for (const char* c : {"all_reduce", "all_gather", "sendrecv"}) reference.by_phase[LocatePhase::host][std::string(c) + " 1 MiB"] = {10, 0.3};
  reference.by_phase[LocatePhase::pairs]["all_gather 1 MiB"] = {10, 0.3};
  const Verdicts v = judge(layout, ms, 0.9, &reference);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::link);
  CHECK(v.findings[0].ratio == Approx(0.4).epsilon(0.05));
}

TEST_CASE("a run's records become the reference of the same collective, size and rank count") {
  const HostLayout layout = uniform_layout(4, 2);
  LocateOptions options;
  options.sizes = {1 << 20};
  RunDocument run;
  const auto add = [&](const std::string& collective, int ranks, double busbw, int repeat) {
    MeasurementRecord r;
    r.collective = &ncclsweep::collective(collective);
    r.dtype = &data_type("float32");
    r.placement = Placement::out_of_place;
    r.size_bytes = measured_bytes({&ncclsweep::collective(collective), 1 << 20}, ranks);
    r.ranks = ranks;
    r.busbw_gbps = busbw;
    r.repeat = repeat;
    run.records.push_back(r);
  };
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (const char* c : {"all_reduce", "all_gather", "sendrecv"}) add(c, 2, 10.0 + repeat, repeat);  // a host's 2 ranks
    for (const char* c : {"all_gather", "sendrecv"}) add(c, 4, 20.0 + repeat, repeat);                // a pair's 4
    add("all_gather", 8, 99.0, repeat);  // the whole world: not what locate's groups measure
  }
  const ReferenceFigures reference = reference_from_run(run, "runs/8gpu", layout, options);
  REQUIRE(reference.find(LocatePhase::host, "all_reduce 1 MiB") != nullptr);
  CHECK(reference.find(LocatePhase::host, "all_reduce 1 MiB")->median == Approx(11));
  CHECK(reference.find(LocatePhase::host, "all_reduce 1 MiB")->band == Approx(1));  // half the repeats' range
  REQUIRE(reference.find(LocatePhase::pairs, "all_gather 1 MiB") != nullptr);
  CHECK(reference.find(LocatePhase::pairs, "all_gather 1 MiB")->median == Approx(21));
  CHECK(reference.source == "runs/8gpu");

  // A test the run lacks: refused, naming it, the rank count and what to run.
  run.records.erase(std::remove_if(run.records.begin(), run.records.end(),
                                   [](const MeasurementRecord& r) { return collective_name(r) == "sendrecv" && r.ranks == 4; }),
                    run.records.end());
  const std::string why = usage_error_text([&] { reference_from_run(run, "runs/8gpu", layout, options); });
  CHECK_THAT(why, ContainsSubstring("--reference runs/8gpu: the run has no sendrecv 1 MiB"));
  CHECK_THAT(why, ContainsSubstring("on 4 ranks"));
  CHECK_THAT(why, ContainsSubstring("--collectives sendrecv --sizes 1 MiB"));
}

TEST_CASE("an earlier locate is a reference only with the same ranks per host and tests") {
  const std::string data = NCCLSWEEP_TEST_DATA;
  LocateOptions options;
  options.sizes = {256 << 10};
  const ReferenceFigures fast = load_reference(data + "/locate/reference-fast", uniform_layout(4, 2), options, EngineKind::mpi);
  REQUIRE(fast.find(LocatePhase::host, "sendrecv 256 KiB") != nullptr);
  CHECK(fast.find(LocatePhase::host, "sendrecv 256 KiB")->median == Approx(1000));
  CHECK(fast.find(LocatePhase::pairs, "all_gather 256 KiB")->median == Approx(1000));
  // Another host count is fine: the references are per test, not per host.
  CHECK_NOTHROW(load_reference(data + "/locate/reference-fast", uniform_layout(6, 2), options, EngineKind::mpi));
  CHECK_THAT(usage_error_text([&] {
               load_reference(data + "/locate/reference-3-per-host", uniform_layout(4, 2), options, EngineKind::mpi);
             }),
             ContainsSubstring("it has 3 rank(s) per host, this launch 2"));
  CHECK_THAT(usage_error_text([&] { load_reference(data + "/locate/reference-fast", uniform_layout(4, 2), options, EngineKind::nccl); }),
             ContainsSubstring("measured with the mpi engine, this launch uses nccl"));
  options.sizes = {1 << 20};
  CHECK_THAT(usage_error_text([&] { load_reference(data + "/locate/reference-fast", uniform_layout(4, 2), options, EngineKind::mpi); }),
             ContainsSubstring("it has no figure for host all_reduce 1 MiB"));
  CHECK_THAT(usage_error_text([&] { load_reference(data + "/locate/none-here", uniform_layout(4, 2), options, EngineKind::mpi); }),
             ContainsSubstring("no such directory"));
}

TEST_CASE("a slow GPU pair within a host is named as a gpu-link, a slow GPU as a gpu") {
  const HostLayout layout = uniform_layout(2, 8);
  // Host 1: its local pair 2-3 at half speed; every other pair of both hosts fine.
  const Verdicts link = judge(layout, gpu_pairs(layout, [](int host, int a, int b) {
                                return host == 1 && a == 2 && b == 3 ? 5.0 : 10.0;
                              }), 0.8);
  REQUIRE(link.findings.size() == 1);
  CHECK(link.findings[0].kind == FindingKind::gpu_link);
  CHECK(link.findings[0].hosts == std::vector<int>{1});
  CHECK(link.findings[0].local == std::vector<int>{2, 3});
  CHECK(link.findings[0].ranks == std::vector<int>{10, 11});
  CHECK(link.findings[0].ratio == Approx(0.5).epsilon(0.05));
  REQUIRE(link.gpu_matrix[1].size() == 8);
  CHECK(link.gpu_matrix[1][2][3] == Approx(0.5).epsilon(0.05));
  CHECK(link.gpu_matrix[1][3][2] == Approx(0.5).epsilon(0.05));
  CHECK(link.gpu_matrix[1][3][4] == Approx(1.0).epsilon(0.05));
  CHECK(link.gpu_matrix[1][0][4] < 0);  // not neighbours: not measured
  // Local GPU 5 of host 0 slow with both its neighbours: the GPU, not its two pairs.
  const Verdicts gpu = judge(layout, gpu_pairs(layout, [](int host, int a, int b) {
                               return host == 0 && (a == 5 || b == 5) ? 3.0 : 10.0;
                             }), 0.8);
  REQUIRE(gpu.findings.size() == 1);
  CHECK(gpu.findings[0].kind == FindingKind::gpu);
  CHECK(gpu.findings[0].local == std::vector<int>{5});
  CHECK(gpu.findings[0].ranks == std::vector<int>{5});
  // All pairs alike within the noise: nothing.
  CHECK(judge(layout, gpu_pairs(layout, [](int, int a, int) { return 10.0 - 0.1 * a; }), 0.8).findings.empty());
}

TEST_CASE("locate's run.json names its pair schedule and reads it back; an unknown one is refused") {
  const auto root = ncclsweep::testing::scratch_root() / "locate-pairs";
  std::filesystem::remove_all(root);
  for (const auto& [schedule, name] : kPairScheduleNames.entries()) {
    LocateDocument document;
    document.rank_hosts = {"h0", "h1"};
    document.options.pairs = schedule;
    document.options.sizes = {1 << 20};
    const auto dir = root / std::string(name);
    open_locate_results(dir);
    write_locate_document(dir, document, Verdicts{});
    const nlohmann::json j = nlohmann::json::parse(read_file(dir / "run.json"));
    CHECK(j.at("options").at("pairs") == name);
    CHECK(read_locate_results(dir).document.options.pairs == schedule);
  }
  const auto dir = root / "all";
  nlohmann::json j = nlohmann::json::parse(read_file(dir / "run.json"));
  j["options"]["pairs"] = "mesh";
  std::ofstream(dir / "run.json") << j.dump();
  const std::string refused = usage_error_text([&] { (void)read_locate_results(dir); });
  CHECK_THAT(refused, ContainsSubstring((dir / "run.json").string() + ": unknown pair schedule 'mesh'"));
  j["options"]["pairs"] = "all";
  j["engine"] = "gloo";
  std::ofstream(dir / "run.json") << j.dump();
  CHECK_THAT(usage_error_text([&] { (void)read_locate_results(dir); }),
             ContainsSubstring((dir / "run.json").string() + ": unknown engine 'gloo'"));
  std::filesystem::remove_all(root);
}

TEST_CASE("locate's records as CSV name each record's collective, size and place") {
  const LocateResults r = read_locate_results(std::string(NCCLSWEEP_TEST_DATA) + "/locate/bed-link-h3");
  std::ostringstream csv;
  print_records_csv(csv, layout_from_hosts(r.document.rank_hosts), r.measurements);
  std::istringstream lines(csv.str());
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  CHECK(header == "phase,round,hosts,rail,ranks,collective,bytes,repeat,time_s,busbw_gbps");
  // The fixture's first line: all_reduce at 1 MiB on h1 (host 0), ranks 0 and 1.
  INFO(first);
  CHECK(first.rfind("host,0,h1,,\"0-1\",all_reduce,1048576,0,0.0106602", 0) == 0);
}

TEST_CASE("a locate record naming a host or rank run.json does not have is refused with its line") {
  const std::filesystem::path from = std::string(NCCLSWEEP_TEST_DATA) + "/locate/bed-link-h3";
  const std::filesystem::path dir = ncclsweep::testing::scratch_root() / "locate-outside-layout";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(from / "run.json", dir / "run.json");
  const std::string records = read_file(from / "records.jsonl");
  const std::string first = records.substr(0, records.find('\n') + 1);
  for (const auto& [field, bad, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"hosts\":[0]", "\"hosts\":[7]", "host index 7"}, {"\"ranks\":[0,1]", "\"ranks\":[0,99]", "rank 99"}}) {
    std::string damaged = first;
    REQUIRE(damaged.find(field) != std::string::npos);
    damaged.replace(damaged.find(field), field.size(), bad);
    std::ofstream(dir / "records.jsonl", std::ios::trunc) << first << damaged;
    CHECK_THAT(usage_error_text([&] { read_locate_results(dir); }),
               ContainsSubstring("records.jsonl line 2: " + says));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a group far slower than the step's typical group times fewer calls, at least one") {
  const std::vector<bool> all(4, true);
  CHECK(iters_per_group({1, 1, 1, 100}, all, 10) == std::vector<int>{10, 10, 10, 1});
  // 10-fold slower: 4 typical repeats' time in its own calls.
  CHECK(iters_per_group({1, 1, 10}, {true, true, true}, 10) == std::vector<int>{10, 10, 4});
  // Within kSlowGroupFactor: every group as asked.
  CHECK(iters_per_group({1, 3.9, 1, 1}, all, 10) == std::vector<int>(4, 10));
  // Two groups (a pairs round of four hosts) and half of the groups slow: the fast ones are typical.
  CHECK(iters_per_group({1, 100}, {true, true}, 10) == std::vector<int>{10, 1});
  CHECK(iters_per_group({1, 1, 50, 50}, all, 10) == std::vector<int>{10, 10, 1, 1});
  // Most groups slow: they are the typical level; the fast one is not cut either.
  CHECK(iters_per_group({1, 50, 50, 50}, all, 10) == std::vector<int>(4, 10));
  // One measured group (or none timed: --warmup 0) has nothing to be typical against.
  CHECK(iters_per_group({1, 100}, {true, false}, 10) == std::vector<int>{10, 10});
  CHECK(iters_per_group({0, 0, 0}, {true, true, true}, 10) == std::vector<int>(3, 10));
  // A repeat under kUncutRepeatSeconds is never cut: a sub-millisecond warm-up call is noise.
  CHECK(iters_per_group({0.001, 0.001, 0.006}, {true, true, true}, 10) == std::vector<int>(3, 10));
  // ... and a cut repeat lasts at least that long: 2 s of 0.5 s calls, not 4 typical repeats' 0.8 s.
  CHECK(iters_per_group({0.02, 0.02, 0.5}, {true, true, true}, 10) == std::vector<int>{10, 10, 2});
}
