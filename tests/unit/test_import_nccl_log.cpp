#include "catch_compat.hpp"
#include "importers/importers.hpp"
#include "test_import_fixtures.hpp"

using namespace ncclsweep;

namespace {
const std::string kRank0 = kFixtures + "/nccl_log/nccl.gpu-node-01.4100.log";
const std::string kRank1 = kFixtures + "/nccl_log/nccl.gpu-node-01.4101.log";
}  // namespace

TEST_CASE("NCCL COLL logs: calls per rank equal each file's count of lines") {
  const auto profile = import_nccl_log(kFixtures + "/nccl_log/nccl.*.log", 0);
  const std::string files[] = {kRank0, kRank1};
  for (const auto& [collective, nccl_name] : {std::pair{"all_gather", "AllGather"}, std::pair{"reduce_scatter", "ReduceScatter"},
                                             std::pair{"all_reduce", "AllReduce"}, std::pair{"sendrecv", "Send"}}) {
    INFO(collective);
    const long lines0 = occurrences(read_file(kRank0), std::string(" ") + nccl_name + ": opCount");
    const long lines1 = occurrences(read_file(kRank1), std::string(" ") + nccl_name + ": opCount");
    REQUIRE(lines0 > 0);
    REQUIRE(lines0 == lines1);  // both ranks made the same calls
    const auto* row = row_of(profile, collective);
    REQUIRE(row != nullptr);
    CHECK(row->calls == lines0);
    CHECK(row->group.size == 2);
  }
  CHECK_FALSE(profile.per_iteration);
  CHECK_THAT(profile.basis, ContainsSubstring("over the whole input"));
}

TEST_CASE("NCCL COLL logs: count is per rank, datatype and op are NCCL numbers") {
  const auto profile = import_nccl_log(kFixtures + "/nccl_log/nccl.*.log", 2);
  // Fixture: AllGather count 6298112 datatype 9 (bfloat16) on 2 ranks -> 6298112 * 2 ranks * 2 B.
  const auto* ag = row_of(profile, "all_gather");
  REQUIRE(ag != nullptr);
  CHECK(ag->bytes == 6298112ull * 2 * 2);
  CHECK(ag->dtype == &ncclsweep::data_type("bfloat16"));
  CHECK_FALSE(ag->op.has_value());
  // ReduceScatter count 6298112 datatype 7 (float32) op 4 (avg): total = count * ranks * 4 B.
  const auto* rs = row_of(profile, "reduce_scatter");
  REQUIRE(rs != nullptr);
  CHECK(rs->bytes == 6298112ull * 2 * 4);
  CHECK(rs->dtype == &ncclsweep::data_type("float32"));
  CHECK(rs->op == ncclsweep::ReduceOp::avg);
  // AllReduce: count * 4 B, not scaled by ranks.
  CHECK(row_of(profile, "all_reduce")->bytes == 1048576ull * 4);
  // --iterations 2 divides: the log covers 2 iterations.
  CHECK(profile.per_iteration);
  CHECK(ag->calls == occurrences(read_file(kRank0), "AllGather: opCount") / 2.0);
}

TEST_CASE("NCCL logs without collective lines, or an empty glob, are refused by name") {
  const auto no_lines = kFixtures + "/nccl_log_without_coll.log";
  const auto text = usage_error_text([&] { import_nccl_log(no_lines, 0); });
  CHECK_THAT(text, ContainsSubstring(no_lines));
  CHECK_THAT(text, ContainsSubstring("no NCCL collective lines"));
  CHECK_THAT(text, ContainsSubstring("NCCL_DEBUG_SUBSYS=COLL"));
  CHECK_THAT(usage_error_text([&] { import_nccl_log(kFixtures + "/nothing-*.log", 0); }),
             ContainsSubstring("no file matches"));
}

TEST_CASE("NCCL COLL logs: a custom reduction operator (a pre-multiplied sum) is counted as sum, with a note") {
  // op 5 and up are ncclRedOpCreatePreMulSum's operators. They used to be kept as "custom5",
  // which a sweep file's sizes: block then refused as an unknown op.
  const std::string line = "h:1:1 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x2 count 256 datatype 7 op 5 "
                           "root 0 comm 0x3 [nranks=2] stream 0x4\n";
  const std::string path = temp_file("custom-op.log", line + line);
  const auto profile = import_nccl_log(path, 0);
  REQUIRE(profile.uses.size() == 1);
  CHECK(profile.uses[0].op == ReduceOp::sum);
  CHECK(profile.uses[0].calls == 2);
  bool noted = false;
  for (const auto& note : profile.notes) noted = noted || note.find("2 call(s) with a custom reduction operator") == 0;
  CHECK(noted);
}
