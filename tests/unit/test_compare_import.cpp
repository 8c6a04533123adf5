// Importers: nccl-tests text and -J JSON, ncclsweep run.json, and bad input.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <fstream>
#include <sstream>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "read_file.hpp"
#include "compare/nccl_tests_collective.hpp"
#include "compare/side_readers.hpp"
#include "scratch.hpp"

using namespace ncclsweep;

namespace {


const SideRow* find_row(const Side& side, Bytes size, const std::string& placement) {
  for (const auto& row : side.rows) {
    if (row.key.size_bytes == size && name_of(row.key.placement) == placement) return &row;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("nccl-tests text imports to exactly the busbw values it prints") {
  for (const char* name : {"nccl-tests-all_gather-np2.txt", "nccl-tests-reduce_scatter-np2.txt",
                           "nccl-tests-all_gather-g2-8B-8G.txt"}) {
    INFO(name);
    const Side side = load_side(kNcclTestsData / name);
    // Read the rows back the simplest way: whitespace columns of this 2.19 layout
    // (size 0, busbw 7 and 11). The first row of a size wins, as in the importer.
    std::istringstream in(read_file(kNcclTestsData / name));
    std::size_t rows = 0;
    std::set<Bytes> seen;
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::vector<std::string> w;
      for (std::string s; words >> s;) w.push_back(s);
      if (w.size() != 13 || w[0][0] == '#') continue;
      const Bytes size = std::stoull(w[0]);
      if (!seen.insert(size).second) continue;
      const SideRow* oop = find_row(side, size, "out_of_place");
      const SideRow* ip = find_row(side, size, "in_place");
      REQUIRE(oop);
      REQUIRE(ip);
      CHECK(oop->busbw_gbps == std::stod(w[7]));
      CHECK(ip->busbw_gbps == std::stod(w[11]));
      CHECK(oop->time_us == std::stod(w[5]));
      CHECK(oop->wrong == std::optional<std::uint64_t>(0));
      rows += 2;
    }
    CHECK(rows > 0);
    CHECK(side.rows.size() == rows);
    CHECK(side.identity.ranks == 2);
    CHECK(side.identity.gpu == "NVIDIA H200");
    CHECK(side.identity.nccl_version.starts_with("2.28."));
  }
}

TEST_CASE("nccl-tests text: collective, dtype and op come from the output") {
  const Side side = load_side(kNcclTestsData / "nccl-tests-reduce_scatter-np2.txt");
  const SideRow* row = find_row(side, 4294967296ULL, "in_place");
  REQUIRE(row);
  CHECK(row->key.collective == &collective("reduce_scatter"));
  CHECK(row->key.dtype == &data_type("float32"));
  CHECK(row->key.op == ReduceOp::sum);
  CHECK(row->busbw_gbps == 310.65);
  CHECK(row->busbw_resolution_gbps == Approx(0.005));
  CHECK(side.identity.hosts == 1);
}

TEST_CASE("nccl-tests text: duplicate sizes keep the first row, and say so") {
  const Side side = load_side(kNcclTestsData / "nccl-tests-all_gather-g2-8B-8G.txt");
  const SideRow* zero = find_row(side, 0, "out_of_place");
  REQUIRE(zero);
  CHECK(zero->time_us == 0.78);
  REQUIRE(!side.notes.empty());
  CHECK_THAT(side.notes.front(), ContainsSubstring("duplicate row"));
}

TEST_CASE("nccl-tests text of older releases: no root column, error column, collective from the file name") {
  const Side side = load_side(kNcclTestsData / "all_reduce-old-format.txt");
  REQUIRE(side.rows.size() == 6);
  const SideRow* row = find_row(side, 16777216, "in_place");
  REQUIRE(row);
  CHECK(row->key.collective == &collective("all_reduce"));
  CHECK(row->busbw_gbps == 69.95);
  CHECK(row->root == -1);
  CHECK(!row->wrong);  // "error" was a max error, not a count of wrong elements
  CHECK(side.identity.ranks == 4);
  CHECK(side.identity.gpu == "Tesla V100-SXM2-32GB");
}

TEST_CASE("nccl-tests text with nThread 2 nGpus 2, per-iteration columns and N/A") {
  const Side side = load_side(kNcclTestsData / "all_reduce-nthread2-ngpus2-per-iter.txt");
  REQUIRE(side.rows.size() == 4);
  const SideRow* oop = find_row(side, 4194304, "out_of_place");
  const SideRow* ip = find_row(side, 4194304, "in_place");
  REQUIRE(oop);
  REQUIRE(ip);
  CHECK(oop->busbw_gbps == 152.08);
  CHECK(ip->busbw_gbps == 153.38);  // not an i_* column
  CHECK(ip->time_us == 41.02);
  CHECK(!oop->wrong);  // N/A: -c 0
  CHECK(side.identity.ranks == 4);
}

TEST_CASE("truncated nccl-tests text is refused with the line") {
  const std::string text = usage_error_text([] { load_side(kNcclTestsData / "truncated.txt"); });
  CHECK_THAT(text, ContainsSubstring("truncated.txt:15"));
  CHECK_THAT(text, ContainsSubstring("truncated"));
  // A file that stops between rows, before the test concluded, is refused too.
  const std::string whole = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  const std::string cut = whole.substr(0, whole.find("# Out of bounds"));
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(cut, "cut.txt"); }),
             ContainsSubstring("never printed '# Collective test concluded'"));
}

TEST_CASE("nccl-tests -J JSON (schema 3) imports results, ranks and per-iteration spread") {
  const Side side = load_side(kNcclTestsData / "all_gather-j.json");
  CHECK(side.identity.source == SideSource::nccl_tests_json);
  CHECK(!side.identity.engine);
  CHECK(side.identity.ranks == 2);
  CHECK(side.identity.nccl_version == "2.28.3");
  CHECK(side.identity.gpu == "NVIDIA H200");
  REQUIRE(side.rows.size() == 3);  // the 4 MiB in-place figures are "nan"
  const SideRow* oop = find_row(side, 1048576, "out_of_place");
  REQUIRE(oop);
  CHECK(oop->key.collective == &collective("all_gather"));
  CHECK(oop->key.dtype == &data_type("float32"));
  CHECK(oop->busbw_gbps == 37.58);
  CHECK(oop->root == -1);
  REQUIRE(oop->measured_spread);
  CHECK(*oop->measured_spread == Approx((14.904 - 13.8) / 13.8));
  const SideRow* big = find_row(side, 4194304, "out_of_place");
  REQUIRE(big);
  CHECK(!big->wrong);
  CHECK(!big->measured_spread);
  CHECK(!find_row(side, 4194304, "in_place"));
}

TEST_CASE("a malformed nccl-tests row is refused with its line, not a crash") {
  std::string text = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  text.replace(text.find("131072"), 6, "13x072");
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(text, "bad.txt"); }),
             ContainsSubstring("bad.txt:12:21: the count cell '13x072' is not a whole number"));
  std::string json_text = read_file(kNcclTestsData / "all_gather-j.json");
  json_text.replace(json_text.find("\"    -1\""), 8, "\"root?\"");
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_json(json_text, "bad.json"); }),
             ContainsSubstring("bad.json: results[0].root 'root?' is not a whole number"));
}

TEST_CASE("nccl-tests JSON of another schema version is refused") {
  std::string text = read_file(kNcclTestsData / "all_gather-j.json");
  text.replace(text.find("\"version\":3"), 11, "\"version\":4");
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_json(text, "x.json"); }), ContainsSubstring("schema version 4"));
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_json(text.substr(0, 300), "x.json"); }),
             ContainsSubstring("not valid JSON"));
}

TEST_CASE("missing, empty and binary inputs are refused clearly") {
  const auto dir = ncclsweep::testing::scratch_root() / "import-test";
  std::filesystem::create_directories(dir);
  CHECK_THAT(usage_error_text([&] { load_side(dir / "nope.txt"); }), ContainsSubstring("does not exist"));
  std::ofstream(dir / "empty.txt") << "\n";
  CHECK_THAT(usage_error_text([&] { load_side(dir / "empty.txt"); }), ContainsSubstring("is empty"));
  {
    std::ofstream binary(dir / "binary.bin", std::ios::binary);
    binary << std::string("\x7f" "ELF\0\0\x01", 7);
  }
  CHECK_THAT(usage_error_text([&] { load_side(dir / "binary.bin"); }), ContainsSubstring("binary file"));
  std::ofstream(dir / "prose.txt") << "hello\nworld\n";
  CHECK_THAT(usage_error_text([&] { load_side(dir / "prose.txt"); }), ContainsSubstring("holds no nccl-tests result rows"));
  std::filesystem::create_directories(dir / "emptydir");
  CHECK_THAT(usage_error_text([&] { load_side(dir / "emptydir"); }), ContainsSubstring("without run.json"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("program names and version codes normalise") {
  CHECK(programs_named_in("/opt/bin/all_gather_perf_mpi") == std::vector<std::string>{"all_gather"});
  CHECK(programs_named_in("reduce_scatter_perf") == std::vector<std::string>{"reduce_scatter"});
  CHECK(nccl_version_string("22803") == "2.28.3");
  CHECK(nccl_version_string("2708") == "2.7.8");
}

TEST_CASE("nccl-tests' names become table entries, and rows ncclsweep cannot compare are skipped with the reason") {
  std::string skipped;
  const auto key = nccl_tests_key("all_gather", "half", "sum", 1024, Placement::in_place, skipped);
  REQUIRE(key);
  CHECK(key->collective == &collective("all_gather"));
  CHECK(key->dtype == &data_type("float16"));
  CHECK_FALSE(key->op);  // all_gather does not reduce, whatever the column says
  CHECK(nccl_tests_key("all_reduce", "f8e4m3", "max", 1024, Placement::in_place, skipped)->dtype == &data_type("fp8_e4m3"));
  CHECK(nccl_tests_key("all_reduce", "float", "avg", 1024, Placement::in_place, skipped)->op == ReduceOp::avg);
  CHECK_FALSE(nccl_tests_key("gather", "float", "none", 1024, Placement::in_place, skipped));
  CHECK(skipped == "gather: not a collective ncclsweep measures");
  CHECK_FALSE(nccl_tests_key("all_reduce", "float", "mulsum", 1024, Placement::in_place, skipped));
  CHECK(skipped == "redop mulsum: not one ncclsweep measures");
  CHECK_FALSE(nccl_tests_key("all_reduce", "complex", "sum", 1024, Placement::in_place, skipped));
  CHECK(skipped == "type complex: not one ncclsweep measures");
  Side side;
  note_skipped_row(side, skipped);
  note_skipped_row(side, skipped);
  CHECK(side.notes == std::vector<std::string>{"rows skipped: type complex: not one ncclsweep measures"});
}

TEST_CASE("most_repeats: the largest repeat count of any row, 1 for a side without rows") {
  Side side;
  CHECK(most_repeats(side) == 1);
  side.rows.resize(3);
  side.rows[0].repeats = 2;
  side.rows[1].repeats = 5;
  side.rows[2].repeats = 1;
  CHECK(most_repeats(side) == 5);
}

namespace {

// nccl-tests 2.13's all_reduce_perf on `ranks` ranks of one host (before 2.17: no start or
// concluded line), with `rows` of its table and, when `concluded`, its trailer; `group`
// gives each rank's NCCL_TESTS_SPLIT colour.
std::string all_reduce_213(int ranks, const std::vector<std::string>& rows, bool concluded,
                           const std::function<int(int)>& group = [](int) { return 0; }) {
  std::string text = "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 16777216 step: 16(factor) warmup iters: 5 iters: 20 "
                     "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < ranks; ++r) {
    text += "#  Rank  " + std::to_string(r) + " Group  " + std::to_string(group(r)) + " Pid   " + std::to_string(2000 + r) +
            " on      node1 device  " + std::to_string(r) + " [0x18] NVIDIA H100 80GB HBM3\n";
  }
  text += "#\n#                                                              out-of-place                       in-place\n"
          "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  for (const auto& row : rows) text += row + "\n";
  if (concluded) text += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 200.5\n#\n";
  return text;
}

const std::string kRow1M = "     1048576        262144     float     sum      -1    16.56   63.32  110.82      0    16.06   65.28  114.24      0";
const std::string kRow16M = "    16777216       4194304     float     sum      -1    84.94  197.51  345.64      0    82.40  203.62  356.33      0";

}  // namespace

TEST_CASE("before 2.17, a test that failed is refused at its failure, not merged with the next") {
  const std::string failed = "+ mpirun -np 8 ./build/all_reduce_perf -b 1M -e 16M -f 16\n" +
                             all_reduce_213(8, {kRow1M}, false) +
                             "node1: Test NCCL failure common.cu:393 'unhandled system error'\n"
                             "+ mpirun -np 8 ./build/all_gather_perf -b 1M -e 16M -f 16\n" +
                             all_reduce_213(8, {kRow1M, kRow16M}, true);
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(failed, "sweep.log"); }),
             ContainsSubstring("sweep.log:18: nccl-tests failed here: the test started at line 2"));
  // Without the failure line: the next test's first line ends an unconcluded one.
  const std::string cut = all_reduce_213(8, {kRow1M}, false) + all_reduce_213(8, {kRow1M, kRow16M}, true);
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(cut, "cut.log"); }),
             ContainsSubstring("truncated nccl-tests output: the test started at line 1 never printed"));
}

TEST_CASE("one file of tests at different rank counts is refused, naming both tests") {
  const std::string scaling = all_reduce_213(8, {kRow1M}, true) + all_reduce_213(16, {kRow1M}, true);
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(scaling, "scaling.log"); }),
             ContainsSubstring("scaling.log:20: the test at line 20 ran on 16 ranks, the one at line 1 on 8"));
}

TEST_CASE("split communicators (NCCL_TESTS_SPLIT) are read at one group's rank count") {
  const Side split = side_from_nccl_tests_text(all_reduce_213(16, {kRow1M}, true, [](int r) { return r / 8 * 8; }), "split.txt");
  CHECK(split.identity.ranks == 8);
  CHECK_THAT(split.notes.front(), ContainsSubstring("ran 2 communicators of 8 ranks at once"));
  CHECK_THAT(usage_error_text([&] {
               side_from_nccl_tests_text(all_reduce_213(9, {kRow1M}, true, [](int r) { return r < 4 ? 0 : 4; }), "odd.txt");
             }),
             ContainsSubstring("groups of unequal size"));
}

TEST_CASE("a row NCCL's log cut in two is read joined; one whose figures never come is named lost") {
  // The row's first cells, then NCCL logging during the timed call, then the figures.
  const std::string head = "    16777216       4194304     float     sum      -1";
  const std::string figures = "    84.94  197.51  345.64      0    82.40  203.62  356.33      0";
  const std::string glued = all_reduce_213(8, {kRow1M, head + "node1:4242:4250 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P",
                                                "node1:4242:4250 [0] NCCL INFO Connected all rings", figures},
                                           true);
  const Side side = side_from_nccl_tests_text(glued, "glued.txt");
  const SideRow* row = find_row(side, 16777216, "out_of_place");
  REQUIRE(row);
  CHECK(row->busbw_gbps == 345.64);
  CHECK(find_row(side, 16777216, "in_place")->busbw_gbps == 356.33);
  CHECK(side.printed_averages.at(0).every_row_kept);
  const std::string lost = all_reduce_213(8, {kRow1M, head + "node1:4242:4250 [0] NCCL INFO Channel 00/1"}, true);
  const Side without = side_from_nccl_tests_text(lost, "lost.txt");
  CHECK(without.rows.size() == 2);
  CHECK_FALSE(without.printed_averages.at(0).every_row_kept);
  CHECK(std::any_of(without.notes.begin(), without.notes.end(),
                    [](const std::string& n) { return n.find("whose figures never followed: skipped") != std::string::npos; }));
}

TEST_CASE("an nccl-tests -J file of a run that failed is refused; one behind a byte order mark is read") {
  std::string text = read_file(kNcclTestsData / "all_gather-j.json");
  nlohmann::json doc = nlohmann::json::parse(text);
  for (const char* key : {"out_of_bounds", "average_bus_bandwidth", "errors", "end_time"}) doc.erase(key);
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_json(doc.dump(), "failed.json"); }),
             ContainsSubstring("failed.json: the test never finished"));
  const auto dir = ncclsweep::testing::scratch_root() / "bom-json";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bom.json") << "\xEF\xBB\xBF" << text;
  const Side side = load_side(dir / "bom.json");
  CHECK(side.identity.source == SideSource::nccl_tests_json);
  CHECK_FALSE(side.rows.empty());
}

TEST_CASE("a run.json of results schema 1 from before sweep points and the host clock were recorded is read") {
  const Side side = load_side(kTestData / "results-schema-1" / "run.json");
  CHECK(side.identity.ranks == 2);
  REQUIRE_FALSE(side.rows.empty());
  for (const SideRow& row : side.rows) CHECK(row.busbw_gbps > 0);
}

TEST_CASE("a size printed again (-N cycles) keeps its first row, and the test's average is not claimed for it") {
  const Side side = side_from_nccl_tests_text(all_reduce_213(8, {kRow1M, kRow16M, kRow1M, kRow16M}, true), "cycles.txt");
  CHECK(side.rows.size() == 4);
  REQUIRE(side.printed_averages.size() == 1);
  CHECK_FALSE(side.printed_averages[0].every_row_kept);
  const Side once = side_from_nccl_tests_text(all_reduce_213(8, {kRow1M, kRow16M}, true), "once.txt");
  CHECK(once.printed_averages.at(0).every_row_kept);
}

TEST_CASE("nccl-tests' -G and -z 1 rows are graph and blocking launches, matched only with such rows") {
  std::string graphs = all_reduce_213(8, {kRow1M}, true);
  graphs.replace(graphs.find("graph: 0"), 8, "graph: 10");
  for (const SideRow& row : side_from_nccl_tests_text(graphs, "G10.txt").rows) CHECK(row.key.variant.launch == LaunchMode::graph);
  std::string blocking = all_reduce_213(8, {kRow1M}, true);
  blocking.insert(blocking.find("#\n# Using devices"), "# Blocking Enabled: wait for completion and barrier after each collective \n");
  for (const SideRow& row : side_from_nccl_tests_text(blocking, "z1.txt").rows) CHECK(row.key.variant.launch == LaunchMode::blocking);
  for (const SideRow& row : side_from_nccl_tests_text(all_reduce_213(8, {kRow1M}, true), "plain.txt").rows) {
    CHECK(row.key.variant.launch == LaunchMode::stream);
  }
  nlohmann::json doc = nlohmann::json::parse(read_file(kNcclTestsData / "all_gather-j.json"));
  doc["config"]["graph"] = 10;
  for (const SideRow& row : side_from_nccl_tests_json(doc.dump(), "G10.json").rows) CHECK(row.key.variant.launch == LaunchMode::graph);
}
