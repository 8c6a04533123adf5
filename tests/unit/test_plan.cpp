#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "plan/measurement_plan.hpp"
#include "runtime/rank_environment.hpp"

using namespace ncclsweep;

namespace {

RunSpec spec_of(const std::string& collectives, const std::string& sizes, const std::string& dtypes,
                const std::string& ops) {
  RunSpec spec;
  spec.collectives = parse_collective_list(collectives);
  spec.sizes = parse_size_list(sizes);
  spec.dtypes = parse_dtype_list(dtypes);
  spec.ops = parse_op_list(ops);
  return spec;
}

}  // namespace

TEST_CASE("the plan orders collective, dtype, op, size and skips ops for data movement") {
  const auto plan = plan_measurements(spec_of("all_gather,all_reduce", "1M,4M", "float32", "sum,max"), 4);
  REQUIRE(plan.calls.size() == 2 + 4);
  CHECK(plan.calls[0].call.kind->name == "all_gather");
  CHECK_FALSE(plan.calls[0].reduces);
  CHECK(plan.calls[2].call.kind->name == "all_reduce");
  CHECK(plan.calls[2].call.op == ReduceOp::sum);
  CHECK(plan.calls[4].call.op == ReduceOp::max);
  CHECK(plan.calls[5].total_bytes == 4u << 20);
  CHECK(plan.notes.empty());
}

TEST_CASE("rounded and dropped sizes are said once") {
  const auto plan = plan_measurements(spec_of("all_gather", "1000,8", "float32", "sum"), 3);
  REQUIRE(plan.calls.size() == 1);
  CHECK(plan.calls[0].total_bytes == 996);
  CHECK(plan.calls[0].requested_bytes == 1000);
  REQUIRE(plan.notes.size() == 2);
  CHECK_THAT(plan.notes[0], ContainsSubstring("8 B is below one element per rank"));
  CHECK_THAT(plan.notes[1], ContainsSubstring("1000 B rounded down to 996 B (a multiple of 3 ranks x 4 B)"));
}

TEST_CASE("a root outside the ranks and an empty plan are usage errors") {
  RunSpec spec = spec_of("broadcast", "1M", "float32", "sum");
  spec.root = 4;
  CHECK_THROWS_WITH(plan_measurements(spec, 4), ContainsSubstring("root 4 is not a rank"));
  CHECK_THROWS_WITH(plan_measurements(spec_of("all_gather", "4", "float64", "sum"), 2),
                    ContainsSubstring("nothing to measure"));
}

TEST_CASE("'all' names every collective; lists refuse empty entries") {
  CHECK(parse_collective_list("all").size() == 7);
  CHECK_THROWS_WITH(parse_collective_list("all_gather,,reduce"), ContainsSubstring("empty entry"));
  CHECK_THROWS_AS(parse_dtype_list("float32,complex64"), UsageError);
}

TEST_CASE("two ranks of one host on one GPU are a conflict; other hosts are not") {
  std::vector<RankEntry> ranks(3);
  ranks[0] = {0, "a", 0, 0, "H200", "0000:00:06.0", {}};
  ranks[1] = {1, "a", 1, 0, "H200", "0000:00:06.0", {}};
  ranks[2] = {2, "b", 0, 0, "H200", "0000:00:06.0", {}};
  const auto conflicts = shared_gpu_conflicts(ranks);
  REQUIRE(conflicts.size() == 1);
  CHECK_THAT(conflicts[0], ContainsSubstring("ranks 0 and 1 on a"));
  CHECK(distinct_hosts(ranks) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("the captured environment holds NCCL and launcher variables only") {
  std::string a = "NCCL_PROTO=Simple", b = "HOME=/root", c = "OMPI_COMM_WORLD_RANK=3", d = "CUDA_VISIBLE_DEVICES=1";
  char* envp[] = {a.data(), b.data(), c.data(), d.data(), nullptr};
  const auto env = captured_environment(envp);
  CHECK(env.size() == 3);
  CHECK(env.at("NCCL_PROTO") == "Simple");
  CHECK(env.count("HOME") == 0);
}
