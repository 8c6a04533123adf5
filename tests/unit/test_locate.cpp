// ncclsweep locate's pure parts: the tournament, the splits, the verdicts, the testing
// aid's text, the time estimate and the records' round trip.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "core/collective.hpp"
#include "locate/locate_fault.hpp"
#include "locate/locate_plan.hpp"
#include "locate/measurement.hpp"
#include "locate/tournament.hpp"
#include "locate/verdicts.hpp"

using namespace ncclsweep;
using namespace ncclsweep::locate;

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
std::vector<Measurement> synthetic(const HostLayout& layout, Busbw busbw, std::vector<double> wobble = {0.99, 1.0, 1.01}) {
  std::vector<Measurement> out;
  const auto add = [&](const std::string& phase, std::vector<int> hosts, int round, const std::string& collective) {
    for (std::size_t r = 0; r < wobble.size(); ++r) {
      Measurement m;
      m.phase = phase;
      m.round = round;
      m.hosts = hosts;
      m.collective = collective;
      m.bytes = 1 << 20;
      m.repeat = static_cast<int>(r);
      m.busbw_gbps = busbw(hosts) * wobble[r];
      m.seconds = 1e-3 / m.busbw_gbps;
      out.push_back(m);
    }
  };
  for (int h = 0; h < layout.host_count(); ++h) add("host", {h}, 0, "all_reduce");
  const auto rounds = round_robin(layout.host_count());
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (const HostPair& p : rounds[r].pairs) {
      add("pairs", {p.a, p.b}, static_cast<int>(r) + 1, "all_gather");
      add("pairs", {p.a, p.b}, static_cast<int>(r) + 1, "sendrecv");
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

TEST_CASE("a slow host is named, and none of its pairs as a link") {
  for (const int hosts : {3, 4, 5, 8}) {
    INFO(hosts << " hosts");
    const HostLayout layout = uniform_layout(hosts, 2);
    const int slow = 1;
    const Verdicts v = judge(layout, synthetic(layout, [&](const std::vector<int>& h) {
                               return touches(h, slow) ? 3.0 : 10.0;
                             }), 0.8);
    REQUIRE(v.findings.size() == 1);
    CHECK(v.findings[0].kind == "host");
    CHECK(v.findings[0].hosts == std::vector<int>{slow});
    CHECK(v.findings[0].ranks == std::vector<int>{2, 3});
    CHECK(v.findings[0].ratio == Approx(0.3).epsilon(0.05));
    CHECK(v.anything_slow());
    CHECK(v.matrix[1][1] == Approx(0.3).epsilon(0.05));
    CHECK(v.matrix[0][2] == Approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("a host slow only across hosts is found by its row of the pair matrix") {
  const HostLayout layout = uniform_layout(4, 2);
  const Verdicts v = judge(layout, synthetic(layout, [](const std::vector<int>& h) {
                             return h.size() == 2 && touches(h, 3) ? 4.0 : 10.0;  // its own numbers are fine
                           }), 0.8);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == "host");
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
    CHECK(v.findings[0].kind == "link");
    CHECK(v.findings[0].hosts == std::vector<int>{0, 2});
    CHECK(v.findings[0].ranks == std::vector<int>{0, 1, 4, 5});
    CHECK(v.findings[0].ratio == Approx(0.5).epsilon(0.05));
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

TEST_CASE("a figure below the threshold but within its noise is not slow") {
  const Figure reference = figure_of({10, 10.1, 9.9});
  // 8.5 of 10 is below 0.9; tight repeats make it slow, a wide spread does not.
  CHECK(below(figure_of({8.4, 8.5, 8.6}), reference, 0.9));
  CHECK_FALSE(below(figure_of({6.0, 8.5, 11.0}), reference, 0.9));
  // Above the threshold, however tight: not slow.
  CHECK_FALSE(below(figure_of({9.5, 9.5, 9.5}), reference, 0.9));
  CHECK(figure_of({1, 2, 3}).band == Approx(1.0));           // half the range
  CHECK(figure_of({10, 10, 10}).band == Approx(0.3));        // at least 3%
}

TEST_CASE("one slow rail of a pair is named as that rail") {
  const HostLayout layout = uniform_layout(4, 2);
  std::vector<Measurement> ms = synthetic(layout, [](const std::vector<int>&) { return 10.0; });
  for (const HostPair& p : std::vector<HostPair>{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}) {
    for (int rail = 0; rail < 2; ++rail) {
      for (int r = 0; r < 3; ++r) {
        Measurement m;
        m.phase = "rails";
        m.hosts = {p.a, p.b};
        m.rail = rail;
        m.collective = "sendrecv";
        m.bytes = 1 << 20;
        m.repeat = r;
        m.busbw_gbps = (p == HostPair{1, 3} && rail == 1 ? 4.0 : 10.0) * (1 + 0.01 * r);
        ms.push_back(m);
      }
    }
  }
  const Verdicts v = judge(layout, ms, 0.8);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == "rail");
  CHECK(v.findings[0].rail == 1);
  CHECK(v.findings[0].ranks == std::vector<int>{3, 7});
}

TEST_CASE("the slow-down aid names a rank or a link") {
  const SlowFault rank = parse_slow_fault("3:slow=4");
  CHECK(rank.rank == 3);
  CHECK(rank.factor == Approx(4));
  CHECK(slowdown_for(rank, 3, {2, 3}, {"h1", "h1"}) == Approx(4));
  CHECK(slowdown_for(rank, 2, {2, 3}, {"h1", "h1"}) == Approx(1));
  const SlowFault link = parse_slow_fault("link=h0,h2:slow=2.5");
  CHECK(link.host_a == "h0");
  CHECK(link.host_b == "h2");
  const std::vector<int> pair_ranks{0, 1, 4, 5};
  const std::vector<std::string> pair_hosts{"h0", "h0", "h2", "h2"};
  CHECK(slowdown_for(link, 0, pair_ranks, pair_hosts) == Approx(2.5));
  // One delayed rank per group: the others wait for it.
  CHECK(slowdown_for(link, 1, pair_ranks, pair_hosts) == Approx(1));
  CHECK(slowdown_for(link, 4, pair_ranks, pair_hosts) == Approx(1));
  CHECK(slowdown_for(link, 1, {1, 5}, {"h0", "h2"}) == Approx(2.5));  // a rail
  CHECK(slowdown_for(link, 0, {0, 1, 2, 3}, {"h0", "h0", "h1", "h1"}) == Approx(1));
  CHECK(slowdown_for(link, 0, {0, 1}, {"h0", "h0"}) == Approx(1));
  CHECK_FALSE(SlowFault{}.active());
  for (const char* bad : {"", "3", "3:sleep=1", "3:slow=", "3:slow=0.5", "3:slow=abc", "x:slow=2", "link=h0:slow=2",
                          "link=h0,h0:slow=2", "link=,h1:slow=2", ":slow=2"}) {
    INFO(bad);
    CHECK_THAT(usage_error_text([&] { parse_slow_fault(bad); }), ContainsSubstring("--inject-fault"));
  }
}

TEST_CASE("the time estimate counts H-1 rounds and grows with them") {
  LocateOptions options;
  options.sizes = {256 << 20};
  const LocateEstimate e64 = estimate_locate(uniform_layout(64, 8), options, 100e9);
  CHECK(e64.rounds == 63);
  CHECK(e64.steps == 64);
  CHECK(e64.per_round_s > 0);
  CHECK(e64.total_s() == Approx(e64.launch_s + e64.splits_s + e64.collectives_s + e64.coordination_s));
  // 32 disjoint pairs per round, 2 tests, 3 repeats each: measurements per round.
  CHECK(e64.measurements == 64 * 3 * 3 + 63 * 32 * 2 * 3);
  options.pairs = "ring";
  const LocateEstimate ring = estimate_locate(uniform_layout(64, 8), options, 100e9);
  CHECK(ring.rounds == 2);
  CHECK(ring.total_s() < e64.total_s() / 10);
  // A pair round at 256 MiB is at least its data over the bus bandwidth, per timed call.
  const double calls = options.warmup + options.repeats * options.iters;
  CHECK(e64.per_round_s > calls * (256.0 * (1 << 20)) * collective("all_gather").busbw_factor(16) / 100e9);
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

TEST_CASE("a locate record reads back as written") {
  Measurement m;
  m.phase = "rails";
  m.round = 3;
  m.hosts = {1, 2};
  m.rail = 1;
  m.ranks = {3, 5};
  m.collective = "sendrecv";
  m.bytes = 65536;
  m.repeat = 2;
  m.seconds = 1.5e-4;
  m.busbw_gbps = 0.43;
  const Measurement back = nlohmann::json(m).get<Measurement>();
  CHECK(back.phase == "rails");
  CHECK(back.round == 3);
  CHECK(back.hosts == m.hosts);
  CHECK(back.rail == 1);
  CHECK(back.ranks == m.ranks);
  CHECK(back.bytes == 65536);
  CHECK(back.busbw_gbps == Approx(0.43));
  m.rail = -1;
  CHECK(nlohmann::json(m).at("rail").is_null());
  CHECK(nlohmann::json(m).get<Measurement>().rail == -1);
  CHECK(m.test() == "sendrecv 64 KiB");
}
