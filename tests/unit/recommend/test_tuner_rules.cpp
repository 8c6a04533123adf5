// The tuner rule file: what a line means, and that a bad line is named and skipped.
#include "catch_compat.hpp"
#include "recommend/tuner_collectives.hpp"
#include "tuner/tuner_rules.hpp"

using namespace ncclsweep::tuner;

TEST_CASE("a full rule line reads field by field", "[tuner]") {
  const RuleFile file = parse_tuner_rules("# header\n\nallgather,1048576,4194304,ring,ll,8,1,2,-1,0\n");
  REQUIRE(file.problems.empty());
  REQUIRE(file.rules.size() == 1);
  const TunerRule& r = file.rules[0];
  CHECK(r.collective == 2);  // ncclFuncAllGather
  CHECK(r.min_bytes == 1048576);
  CHECK(r.max_bytes == 4194304);
  CHECK(r.algorithm == 1);  // NCCL_ALGO_RING
  CHECK(r.protocol == 0);   // NCCL_PROTO_LL
  CHECK(r.channels == 8);
  CHECK(r.nodes == 1);
  CHECK(r.ranks == 2);
  CHECK(r.pipe_ops == kAny);
  CHECK(r.reg_buff == 0);
  CHECK(r.line == 3);
  CHECK(format_rule(r) == "allgather,1048576,4194304,ring,ll,8,1,2,-1,0");
}

TEST_CASE("8 and 9 field lines match any numPipeOps and regBuff, as NCCL's example reads them", "[tuner]") {
  const RuleFile file = parse_tuner_rules("allreduce,0,65536,tree,simple,-1,-1,-1\nbroadcast,0,10,ring,LL128,-1,-1,-1,2\n");
  REQUIRE(file.rules.size() == 2);
  CHECK(file.rules[0].pipe_ops == kAny);
  CHECK(file.rules[0].reg_buff == kAny);
  CHECK(file.rules[1].pipe_ops == 2);
  CHECK(file.rules[1].protocol == 1);
}

TEST_CASE("bad lines are reported with their line number and skipped", "[tuner]") {
  const RuleFile file = parse_tuner_rules(
      "allgather,0,100,rign,ll,-1,-1,-1\n"
      "allgather,0,100\n"
      "alltoall,0,100,ring,ll,-1,-1,-1\n"
      "allgather,200,100,ring,ll,-1,-1,-1\n"
      "allgather,0,1e6,ring,ll,-1,-1,-1\n"
      "allgather,0,100,ring,ll,0,-1,-1\n"
      "allgather,0,100,ring,ll,-1,-1,-1,-1,2\n"
      "reducescatter,0,100,ring,simple,-1,-1,-1\n");
  REQUIRE(file.problems.size() == 7);
  CHECK(file.problems[0].line == 1);
  CHECK_THAT(file.problems[0].why, ContainsSubstring("unknown algorithm 'rign'"));
  CHECK_THAT(file.problems[1].why, ContainsSubstring("3 fields, want 8 to 10"));
  CHECK_THAT(file.problems[2].why, ContainsSubstring("unknown collective_type 'alltoall'"));
  CHECK_THAT(file.problems[3].why, ContainsSubstring("min_bytes is larger than max_bytes"));
  CHECK_THAT(file.problems[4].why, ContainsSubstring("max_bytes '1e6'"));
  CHECK_THAT(file.problems[5].why, ContainsSubstring("channels '0'"));
  CHECK(file.problems[6].line == 7);
  CHECK_THAT(file.problems[6].why, ContainsSubstring("regBuff '2'"));
  REQUIRE(file.rules.size() == 1);
  CHECK(file.rules[0].line == 8);
}

TEST_CASE("the first rule that matches the call's collective, size and shape wins", "[tuner]") {
  const auto rules = parse_tuner_rules(
                         "allgather,0,1000,ring,ll,-1,1,8,-1,-1\n"
                         "allgather,0,1000,tree,simple,-1,-1,-1,-1,-1\n"
                         "allgather,1001,2000,ring,simple,-1,-1,-1,-1,1\n")
                         .rules;
  CHECK(first_match(rules, {2, 1000, 1, 8, 1, 0}) == std::optional<std::size_t>(0));
  CHECK(first_match(rules, {2, 1000, 2, 16, 1, 0}) == std::optional<std::size_t>(1));  // other shape
  CHECK(first_match(rules, {2, 1500, 1, 8, 1, 0}) == std::nullopt);                    // not registered
  CHECK(first_match(rules, {2, 1500, 1, 8, 1, 1}) == std::optional<std::size_t>(2));
  CHECK(first_match(rules, {4, 10, 1, 8, 1, 0}) == std::nullopt);                      // allreduce
  CHECK(first_match(rules, {2, 2001, 1, 8, 1, 1}) == std::nullopt);
}

TEST_CASE("each collective a tuner chooses for maps to its tuner name and back; the others map to none") {
  int mapped = 0;
  for (const ncclsweep::CollectiveKind& kind : ncclsweep::all_collectives()) {
    INFO(kind.name);
    const auto index = ncclsweep::tuner_collective(kind);
    const bool tuned = kind.name == "broadcast" || kind.name == "reduce" || kind.name == "all_gather" ||
                       kind.name == "reduce_scatter" || kind.name == "all_reduce";
    CHECK(index.has_value() == tuned);
    if (!index) continue;
    ++mapped;
    CHECK(ncclsweep::collective_of_tuner(*index) == &kind);
  }
  CHECK(mapped == kNumCollectives);
  CHECK(ncclsweep::tuner_collective(ncclsweep::collective("all_gather")) == parse_collective("allgather"));
}
