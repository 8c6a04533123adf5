#include "catch_compat.hpp"
#include "importers/importers.hpp"
#include "test_import_fixtures.hpp"

using namespace ncclsweep;

TEST_CASE("Inspector output: calls per rank equal each file's records, sizes scaled from per rank") {
  const auto rank0 = read_file(kFixtures + "/inspector/nccl-inspector-rank0.log");
  const auto profile = import_inspector(kFixtures + "/inspector/*.log", 0);
  for (const auto& [collective, name] : {std::pair{"all_gather", "AllGather"}, std::pair{"reduce_scatter", "ReduceScatter"},
                                         std::pair{"all_reduce", "AllReduce"}}) {
    INFO(collective);
    const long records = occurrences(rank0, std::string("\"coll\": \"") + name + "\"");
    REQUIRE(records > 0);
    const auto* row = row_of(profile, collective);
    REQUIRE(row != nullptr);
    CHECK(row->calls == records);
  }
  // Fixture: AllGather coll_msg_size_bytes 12596224 per rank on n_ranks 2 -> total 2x;
  // AllReduce 4194304 stays as it is.
  CHECK(row_of(profile, "all_gather")->bytes == 12596224ull * 2);
  CHECK(row_of(profile, "all_reduce")->bytes == 4194304ull);
}

TEST_CASE("Inspector: pretty-printed objects parse too; broken ones are refused by name") {
  const auto pretty = temp_file("inspector-pretty.log",
                                "{\n  \"header\": {\"id\": \"0x1\", \"rank\": 0, \"n_ranks\": 4},\n"
                                "  \"coll_perf\": {\"coll\": \"ReduceScatter\", \"coll_msg_size_bytes\": 1024}\n}\n"
                                "{\n  \"header\": {\"id\": \"0x1\", \"rank\": 0, \"n_ranks\": 4},\n"
                                "  \"coll_perf\": {\"coll\": \"ReduceScatter\", \"coll_msg_size_bytes\": 1024}\n}\n");
  const auto p = import_inspector(pretty, 0);
  REQUIRE(p.uses.size() == 1);
  CHECK(p.uses[0].calls == 2);
  CHECK(p.uses[0].bytes == 4096);
  const auto broken = temp_file("inspector-broken.log", "{\"header\": {\"n_ranks\": 2}, \"coll_perf\": {\"coll\": \"AllGa");
  CHECK_THAT(usage_error_text([&] { import_inspector(broken, 0); }), ContainsSubstring(broken + " (record 1)"));
  const auto empty = temp_file("inspector-empty.log", "\n");
  CHECK_THAT(usage_error_text([&] { import_inspector(empty, 0); }), ContainsSubstring("no Inspector collective records"));
}
