// Per-node view and slow groups' hosts: synthetic runs over
// several fake hosts, built the way the runtime fills records (rank_time_us per rank,
// per_communicator from the group members' times).
#include <nlohmann/json.hpp>

#include <sstream>

#include "catch_compat.hpp"
#include "report/node_report.hpp"
#include "results/node_timing.hpp"
#include "results/slow_groups.hpp"

using namespace ncclsweep;

namespace {

// Ranks spread over hosts by a rule, so grouping by contiguous blocks would be wrong.
RunDocument run_on(int ranks, std::string (*host_of)(int)) {
  RunDocument run;
  run.name = "synthetic";
  for (int r = 0; r < ranks; ++r) {
    RankEntry e;
    e.rank = r;
    e.host = host_of(r);
    run.ranks.push_back(e);
  }
  return run;
}

std::string round_robin_of_three(int rank) { return "h" + std::to_string(rank % 3); }
std::string blocks_of_sixteen(int rank) { return "node" + std::to_string(rank / 16); }
std::string blocks_of_four(int rank) { return "node" + std::to_string(rank / 4); }

MeasurementRecord world_record(std::vector<double> times) {
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.ranks = static_cast<int>(times.size());
  r.rank_time_us = std::move(times);
  return r;
}

// A grouped record: `members[g]` are group g's ranks; per_communicator from their times.
MeasurementRecord grouped_record(const std::string& kind, const std::vector<std::vector<int>>& members,
                                 std::vector<double> times) {
  MeasurementRecord r = world_record(std::move(times));
  r.communicator = kCommunicatorKindNames.parse(kind);
  r.ranks = static_cast<int>(members.front().size());
  r.communicators = static_cast<int>(members.size());
  for (std::size_t g = 0; g < members.size(); ++g) {
    SubCommunicatorTime t;
    t.colour = static_cast<int>(g);
    t.time_us.min = 1e300;
    for (int rank : members[g]) {
      const double us = r.rank_time_us[static_cast<std::size_t>(rank)];
      t.time_us.min = std::min(t.time_us.min, us);
      t.time_us.max = std::max(t.time_us.max, us);
      t.time_us.avg += us / static_cast<double>(members[g].size());
    }
    r.per_communicator.push_back(t);
  }
  return r;
}

// 32 ranks, dp groups of 4 strided 8 apart (tp 8 inside): group g is g, g+8, g+16, g+24.
std::vector<std::vector<int>> dp_groups_of_32() {
  std::vector<std::vector<int>> groups(8);
  for (int g = 0; g < 8; ++g) groups[static_cast<std::size_t>(g)] = {g, g + 8, g + 16, g + 24};
  return groups;
}

// Distinct times per rank (a small rank-dependent offset), group 3's ranks `slow` slower.
std::vector<double> times_with_slow_dp_group(double slow, double base) {
  std::vector<double> t(32);
  for (int r = 0; r < 32; ++r) t[static_cast<std::size_t>(r)] = base + 0.01 * r;
  for (int r : {3, 11, 19, 27}) t[static_cast<std::size_t>(r)] *= 1 + slow;
  return t;
}

}  // namespace

TEST_CASE("per-node view groups ranks by host, not by block, and names the slow host") {
  RunDocument run = run_on(6, round_robin_of_three);  // h0: 0,3  h1: 1,4  h2: 2,5
  // h1's ranks are 10% and 20% slower in every measurement.
  for (double scale : {1.0, 2.0, 4.0}) {
    run.records.push_back(world_record({100 * scale, 110 * scale, 100 * scale, 100 * scale, 120 * scale, 100 * scale}));
  }
  const NodeTimingView v = node_timings(run);
  REQUIRE(v.nodes.size() == 3);
  CHECK(v.measurements == 3);
  CHECK(v.nodes[1].host == "h1");
  CHECK(v.nodes[1].ranks == std::vector<int>{1, 4});
  CHECK(v.nodes[1].median_excess == Approx(0.15));  // median of 110, 120 over the all-rank median 100
  CHECK(v.nodes[1].worst_excess == Approx(0.20));
  CHECK(v.nodes[1].worst_rank == 4);
  CHECK(v.nodes[1].slowest_in == 3);
  CHECK(v.nodes[0].median_excess == Approx(0.0));
  REQUIRE(v.slowest.has_value());
  CHECK(*v.slowest == 1);
  CHECK(v.slowest_vs_other_hosts == Approx(0.15));
  CHECK(v.slowest_stands_out);
}

TEST_CASE("the slowest host is slow in most measurements, not in one") {
  RunDocument run = run_on(6, round_robin_of_three);
  // h2 is 50% slower once; h1 8% slower in all three.
  run.records.push_back(world_record({100, 108, 150, 100, 108, 150}));
  run.records.push_back(world_record({100, 108, 100, 100, 108, 100}));
  run.records.push_back(world_record({100, 108, 100, 100, 108, 100}));
  const NodeTimingView v = node_timings(run);
  REQUIRE(v.slowest.has_value());
  CHECK(v.nodes[*v.slowest].host == "h1");
  CHECK(v.nodes[2].worst_excess == Approx(0.0));  // median over measurements: the one blip does not count
  CHECK(v.nodes[2].slowest_in == 1);
  CHECK(v.nodes[1].slowest_in == 2);
}

TEST_CASE("hosts within the threshold do not stand out; records without every rank's time are left out") {
  RunDocument run = run_on(4, blocks_of_four);  // one host: nothing to compare
  run.records.push_back(world_record({100, 101, 102, 103}));
  CHECK_FALSE(node_timings(run).slowest_stands_out);

  RunDocument two = run_on(4, [](int r) { return std::string(r < 2 ? "a" : "b"); });
  two.records.push_back(world_record({100, 100, 104, 104}));
  two.records.push_back(world_record({100, 100, 500}));  // a failed rank's slot missing: not counted
  two.records.push_back(world_record({}));               // an older file without per-rank times
  const NodeTimingView v = node_timings(two);
  CHECK(v.measurements == 1);
  REQUIRE(v.slowest.has_value());
  CHECK(v.nodes[*v.slowest].host == "b");
  CHECK(v.slowest_vs_other_hosts == Approx(0.04));
  CHECK_FALSE(v.slowest_stands_out);  // 4% is under 5%
  CHECK(node_timings(two, 0.03).slowest_stands_out);
}

TEST_CASE("plain group kinds give their layout without times: size and intra-node adjacent, stride and inter-node strided") {
  MeasurementRecord r;
  r.ranks = 4;
  r.communicators = 2;
  r.communicator = CommunicatorKind::size;
  CHECK(group_layout(r, 8)->stride == 1);
  r.communicator = CommunicatorKind::intra_node;
  CHECK(group_layout(r, 8)->stride == 1);
  r.communicator = CommunicatorKind::stride;
  CHECK(group_layout(r, 8)->stride == 2);
  r.communicator = CommunicatorKind::inter_node;
  CHECK(group_layout(r, 8)->stride == 2);
  CHECK(group_members(*group_layout(r, 8), 1, 8) == std::vector<int>{1, 3, 5, 7});
  CHECK_FALSE(group_layout(r, 6).has_value());  // 4 x 2 is not 6 ranks: not this run's record
}

TEST_CASE("a workload group's stride is the one whose groups reproduce per_communicator from the ranks' times") {
  const MeasurementRecord r = grouped_record("dp", dp_groups_of_32(), times_with_slow_dp_group(0.12, 100));
  const auto layout = group_layout(r, 32);
  REQUIRE(layout.has_value());
  CHECK(layout->stride == 8);
  CHECK(group_members(*layout, 3, 32) == std::vector<int>{3, 11, 19, 27});

  // Identical times fit every stride: the layout cannot be told.
  const MeasurementRecord flat = grouped_record("dp", dp_groups_of_32(), std::vector<double>(32, 100.0));
  CHECK_FALSE(group_layout(flat, 32).has_value());
}

TEST_CASE("a slow dp group is named with its ranks and the hosts they span") {
  RunDocument run = run_on(32, blocks_of_sixteen);
  for (double base : {100.0, 200.0, 400.0}) {
    run.records.push_back(grouped_record("dp", dp_groups_of_32(), times_with_slow_dp_group(0.12, base)));
  }
  run.records.push_back(world_record(times_with_slow_dp_group(0.12, 100)));  // not grouped: ignored here
  const auto slow = find_slow_groups(run);
  REQUIRE(slow.size() == 1);
  CHECK(slow[0].kind == CommunicatorKind::dp);
  CHECK(slow[0].colour == 3);
  CHECK(slow[0].ranks == std::vector<int>{3, 11, 19, 27});
  CHECK(slow[0].hosts == std::vector<std::string>{"node0", "node1"});
  CHECK(slow[0].measurements == 3);
  CHECK(slow[0].slower_in == 3);
  CHECK(slow[0].median_excess == Approx(0.12).epsilon(0.01));
  CHECK(slow_group_line(slow[0], kSlowShare).rfind("dp group 3 (ranks 3,11,19,27) spans hosts node0,node1: +12", 0) == 0);
  CHECK(find_slow_groups(run, 0.2).empty());  // 12% is under a 20% threshold
}

TEST_CASE("a slow group on one host lists that host; two groups compare with each other, not a median halved") {
  RunDocument run = run_on(8, blocks_of_four);  // node0: 0-3, node1: 4-7
  const std::vector<std::vector<int>> blocks{{0, 1, 2, 3}, {4, 5, 6, 7}};
  // Block 1 is 10% slower: against a median of both groups it would look 4.8% slower.
  run.records.push_back(grouped_record("size", blocks, {100, 100, 100, 100, 110, 110, 110, 110}));
  const auto slow = find_slow_groups(run);
  REQUIRE(slow.size() == 1);
  CHECK(slow[0].colour == 1);
  CHECK(slow[0].ranks == std::vector<int>{4, 5, 6, 7});
  CHECK(slow[0].hosts == std::vector<std::string>{"node1"});
  CHECK(slow[0].median_excess == Approx(0.10));
  CHECK_THAT(slow_group_line(slow[0], kSlowShare), ContainsSubstring("spans host node1:"));
}

TEST_CASE("a slow group whose layout cannot be told is still reported, without ranks") {
  RunDocument run = run_on(8, blocks_of_four);
  MeasurementRecord r = grouped_record("tp", {{0, 1, 2, 3}, {4, 5, 6, 7}}, {100, 100, 100, 100, 130, 130, 130, 130});
  r.rank_time_us.clear();  // a file from before per-rank times
  run.records.push_back(r);
  const auto slow = find_slow_groups(run);
  REQUIRE(slow.size() == 1);
  CHECK(slow[0].ranks.empty());
  CHECK(slow[0].hosts.empty());
  CHECK_THAT(slow_group_line(slow[0], kSlowShare), ContainsSubstring("ranks unknown"));
}

TEST_CASE("the node report prints the view in every format and refuses others") {
  RunDocument run = run_on(32, blocks_of_sixteen);
  for (double base : {100.0, 200.0, 400.0}) {
    run.records.push_back(grouped_record("dp", dp_groups_of_32(), times_with_slow_dp_group(0.12, base)));
  }
  CHECK(node_report_by_default(run));
  CHECK_FALSE(node_report_by_default(run_on(4, blocks_of_four)));
  const NodeReport report = build_node_report(run);
  CHECK(report.grouped_measurements == 3);

  std::ostringstream table;
  print_node_report(report, ReportFormat::table, table);
  CHECK_THAT(table.str(), ContainsSubstring("node1"));
  CHECK_THAT(table.str(), ContainsSubstring("0-15 (16)"));
  CHECK_THAT(table.str(), ContainsSubstring("dp group 3 (ranks 3,11,19,27) spans hosts node0,node1"));

  std::ostringstream md;
  print_node_report(report, ReportFormat::md, md);
  CHECK_THAT(md.str(), ContainsSubstring("| node0 | 0-15 (16) |"));

  std::ostringstream json_text;
  print_node_report(report, ReportFormat::json, json_text);
  const auto j = nlohmann::json::parse(json_text.str());
  REQUIRE(j.at("nodes").size() == 2);
  CHECK(j.at("nodes")[1].at("ranks").size() == 16);
  CHECK(j.at("slow_groups")[0].at("hosts") == nlohmann::json({"node0", "node1"}));
  CHECK(j.at("slow_groups")[0].at("ranks") == nlohmann::json({3, 11, 19, 27}));

  std::ostringstream csv;
  print_node_report(report, ReportFormat::csv, csv);
  CHECK_THAT(csv.str(), ContainsSubstring("\nslow_group,dp group 3,\"3,11,19,27\",node0 node1,3,"));
  CHECK_THAT(usage_error_text([&] { print_node_report(report, ReportFormat::svg, csv); }), ContainsSubstring("table, md, csv or json"));
}
