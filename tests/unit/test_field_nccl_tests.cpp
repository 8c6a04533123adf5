// nccl-tests output as engineers keep it (tests/data/field/nccl-tests, README.md there):
// every layout since 2.0, launcher prefixes, files with no program line, several tests
// in one file, -J JSON of each schema version. The collective, ranks, rows and figures
// are checked against the files' own text, read here by plain splitting.
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "catch_compat.hpp"
#include "compare/comparison.hpp"
#include "compare/nccl_tests_collective.hpp"
#include "compare/side_readers.hpp"
#include "read_file.hpp"
#include "report/printers.hpp"
#include "test_data.hpp"

using namespace ncclsweep;

namespace {

const std::filesystem::path kFieldNcclTests = kTestData / "field" / "nccl-tests";

// A file's result rows by plain splitting: the words after the size, count and type
// cells, keyed by size, whatever a launcher put before them.
std::map<Bytes, std::vector<std::string>> field_rows(const std::string& text) {
  static const std::regex kRow(R"((^|\s)(\d+)\s+(\d+)\s+(float|half|double|bfloat16)(\s.*)$)");
  std::map<Bytes, std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.find('#') != std::string::npos || !std::regex_search(line, m, kRow)) continue;
    std::istringstream rest(m.str(5));
    std::vector<std::string> words;
    for (std::string w; rest >> w;) words.push_back(w);
    rows.emplace(std::stoull(m.str(2)), words);
  }
  return rows;
}

const SideRow* field_row(const Side& side, Bytes size, Placement placement) {
  for (const auto& row : side.rows) {
    if (row.key.size_bytes == size && row.key.placement == placement) return &row;
  }
  return nullptr;
}

// "# Avg bus bandwidth    : 0.649894" -> "0.649894"
std::string printed_average(const std::string& text) {
  std::smatch m;
  static const std::regex kAverage(R"(Avg bus bandwidth\s*:\s*(\S+))");
  REQUIRE(std::regex_search(text, m, kAverage));
  return m.str(1);
}

struct FieldFile {
  const char* name;
  const char* collective;
  int ranks, hosts;
  int busbw_out, busbw_in;  // which word after the type cell holds each placement's busbw
};

}  // namespace

TEST_CASE("field nccl-tests text of every layout: collective, ranks, rows and busbw as the file prints them") {
  const FieldFile files[] = {
      {"allreduce.log", "all_reduce", 8, 1, 4, 8},           // 2.13: redop, root, #wrong
      {"reducescatter.log", "reduce_scatter", 8, 2, 4, 8},   // 2.14, two hosts
      {"results-node07.txt", "reduce_scatter", 4, 1, 3, 7},  // 2.0: no root column, 'error'
      {"bcast-2node.log", "broadcast", 16, 2, 3, 7},         // 2.11 under srun --label: blank redop cell
      {"job-88412.out", "all_gather", 4, 1, 4, 8},           // 2.19 under mpirun --tag-output
      {"ar-I1-S1-C1.txt", "all_reduce", 2, 1, 4, 12},        // 2.19 -I -S -C: cputime, i_* and timestamps
  };
  for (const auto& f : files) {
    INFO(f.name);
    const std::string text = read_file(kFieldNcclTests / f.name);
    const Side side = load_side(kFieldNcclTests / f.name);
    const auto rows = field_rows(text);
    REQUIRE(rows.size() > 2);
    CHECK(side.rows.size() == 2 * rows.size());
    CHECK(side.identity.ranks == f.ranks);
    CHECK(side.identity.ranks == static_cast<int>(occurrences(text, " Rank ")));
    CHECK(side.identity.hosts == f.hosts);
    for (const auto& row : side.rows) CHECK(row.key.collective == &collective(f.collective));
    for (const auto& [size, words] : rows) {
      const SideRow* out = field_row(side, size, Placement::out_of_place);
      const SideRow* in = field_row(side, size, Placement::in_place);
      REQUIRE(out);
      REQUIRE(in);
      CHECK(out->busbw_gbps == std::stod(words[static_cast<std::size_t>(f.busbw_out)]));
      CHECK(in->busbw_gbps == std::stod(words[static_cast<std::size_t>(f.busbw_in)]));
      CHECK(out->time_us == std::stod(words[static_cast<std::size_t>(f.busbw_out - 2)]));
    }
  }
}

TEST_CASE("field nccl-tests: a program named only by the file name counts as whole words, never part of one") {
  const std::string text = read_file(kFieldNcclTests / "allreduce.log");  // 2.13: the output names no program
  for (const char* name : {"allreduce.log", "/runs/all_reduce_perf.txt", "nccl-AllReduce-8gpu.out", "AR_results.txt"}) {
    INFO(name);
    const Side side = side_from_nccl_tests_text(text, name);
    REQUIRE(!side.rows.empty());
    CHECK(side.rows.front().key.collective == &collective("all_reduce"));
  }
  // Before 2.17 nccl-tests prints no NCCL version: NCCL's own INFO line gives it.
  std::smatch version;
  REQUIRE(std::regex_search(text, version, std::regex(R"(NCCL INFO NCCL version (\d+\.\d+\.\d+))")));
  CHECK(side_from_nccl_tests_text(text, "allreduce.log").identity.nccl_version == version.str(1));
  // "AR_results.txt" names nothing: the table alone says all_reduce at 8 ranks.
  const Side by_table = side_from_nccl_tests_text(text, "AR_results.txt");
  bool noted = false;
  for (const auto& note : by_table.notes) noted = noted || note.find("recognised from its table") != std::string::npos;
  CHECK(noted);
  // A name that contradicts the table is refused with both.
  const std::string wrong = usage_error_text([&] { side_from_nccl_tests_text(text, "reduce.log"); });
  CHECK_THAT(wrong, ContainsSubstring("reduce.log:1: "));
  CHECK_THAT(wrong, ContainsSubstring("the file name 'reduce.log' says reduce"));
  CHECK_THAT(wrong, ContainsSubstring("it fits all_reduce"));
  CHECK_THAT(wrong, ContainsSubstring("fix: rename the file"));
  // reducescatter.log is reduce_scatter, never reduce; under a name that says nothing,
  // only reduce_scatter prints an op with a count per rank.
  const std::string rs = read_file(kFieldNcclTests / "reducescatter.log");
  for (const char* name : {"reducescatter.log", "bench.txt"}) {
    INFO(name);
    CHECK(side_from_nccl_tests_text(rs, name).rows.front().key.collective == &collective("reduce_scatter"));
  }
}

TEST_CASE("field nccl-tests: a test whose collective cannot be known is refused saying exactly that") {
  const std::string text = read_file(kFieldNcclTests / "run3.txt");  // all_gather's table, also alltoall's
  const std::string refused = usage_error_text([&] { load_side(kFieldNcclTests / "run3.txt"); });
  CHECK_THAT(refused, ContainsSubstring("run3.txt:1: the collective of the test at line 1 cannot be known"));
  CHECK_THAT(refused, ContainsSubstring("names no nccl-tests program"));
  CHECK_THAT(refused, ContainsSubstring("the file name 'run3.txt' names no collective"));
  CHECK_THAT(refused, ContainsSubstring("fits all_gather, alltoall"));
  CHECK_THAT(refused, ContainsSubstring("fix: rename the file after the program that printed it"));
  CHECK(refused.find("holds no nccl-tests result rows") == std::string::npos);
  // Named, it reads: as the file name says, and as the program line says.
  CHECK(side_from_nccl_tests_text(text, "all_gather_perf.txt").rows.front().key.collective == &collective("all_gather"));
  CHECK(side_from_nccl_tests_text(text, "alltoall.txt").rows.front().key.collective == &collective("alltoall"));
  const Side named = side_from_nccl_tests_text("# Collective test starting: all_gather_perf_mpi\n" + text, "run3.txt");
  CHECK(named.rows.front().key.collective == &collective("all_gather"));
  CHECK(named.rows.size() == 2 * field_rows(text).size());
}

TEST_CASE("nccl-tests tables: which placements were checked tells all_gather from alltoall") {
  // A checked all_gather counts wrong elements in both placements; alltoall (2.13.1+)
  // leaves its in-place count N/A. Same sizes, counts and busbw otherwise.
  std::string text = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  text.erase(text.find("# Collective test starting"), text.find('\n', text.find("# Collective test starting")) + 1 -
                                                           text.find("# Collective test starting"));
  const Side gathered = side_from_nccl_tests_text(text, "bench.txt");
  CHECK(gathered.rows.front().key.collective == &collective("all_gather"));
  std::string alltoall;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto rows = field_rows(line + "\n");
    if (!rows.empty()) line.replace(line.rfind("0"), 1, "N/A");  // the in-place #wrong, last on the row
    alltoall += line + "\n";
  }
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(alltoall, "bench.txt"); }),
             ContainsSubstring("#wrong N/A in place only, busbw = 0.50 x algbw) fits alltoall or alltoallv"));
  CHECK(side_from_nccl_tests_text(alltoall, "alltoall_perf.log").rows.front().key.collective == &collective("alltoall"));
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_text(alltoall, "all_gather_perf.log"); }),
             ContainsSubstring("the file name 'all_gather_perf.log' says all_gather, but the table"));
}

TEST_CASE("field nccl-tests: several tests in one file take their programs from the command lines before them") {
  const std::string text = read_file(kFieldNcclTests / "nccl-tests-sweep.log");
  const Side side = load_side(kFieldNcclTests / "nccl-tests-sweep.log");
  std::map<std::string, std::size_t> per_collective;
  for (const auto& row : side.rows) ++per_collective[std::string(row.key.collective->name)];
  // Each test printed the same sizes, once per placement.
  const std::size_t sizes = field_rows(text).size();
  CHECK(per_collective == std::map<std::string, std::size_t>{{"all_gather", 2 * sizes}, {"all_reduce", 2 * sizes}});
  CHECK(side.identity.ranks == 4);
}

TEST_CASE("nccl-tests lines behind any launcher prefix read as the bare file does") {
  const std::string bare = read_file(kNcclTestsData / "nccl-tests-all_gather-np2.txt");
  const Side reference = side_from_nccl_tests_text(bare, "bare.txt");
  for (const std::string prefix : {"[1,0]<stdout>:", "0: ", "  3: ", "2026-01-05T10:00:00.123456Z ", "[0] ",
                                   "(RayTrainWorker pid=615, ip=10.72.7.6) ", "Jan 05 10:00:00 node-3 job[818]: "}) {
    INFO(prefix);
    std::istringstream in(bare);
    std::string prefixed;
    for (std::string line; std::getline(in, line);) prefixed += prefix + line + "\n";
    const Side side = side_from_nccl_tests_text(prefixed, "prefixed.txt");
    REQUIRE(side.rows.size() == reference.rows.size());
    for (std::size_t i = 0; i < side.rows.size(); ++i) {
      CHECK(side.rows[i].key == reference.rows[i].key);
      CHECK(side.rows[i].busbw_gbps == reference.rows[i].busbw_gbps);
      CHECK(side.rows[i].time_us == reference.rows[i].time_us);
    }
    CHECK(side.identity.ranks == reference.identity.ranks);
    CHECK(side.identity.nccl_version == reference.identity.nccl_version);
  }
}

TEST_CASE("nccl-tests 1.x and 2.0 layouts: milliseconds, 'bytes N op res', a blank redop cell") {
  // 1.x: times in ms, no '#' before nThread or the closing lines.
  const std::string v1 =
      "nThread 1 nGpus 2 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n"
      "# Using devices\n"
      "#   Rank  0 on      node1 device  0 [0x04] Tesla P100-SXM2-16GB\n"
      "#   Rank  1 on      node1 device  1 [0x05] Tesla P100-SXM2-16GB\n"
      "#                                         out-of-place                    in-place\n"
      "#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res\n"
      "     1048576        262144   float     sum    0.104  10.08  10.08    0e+00    0.103  10.18  10.18    0e+00\n"
      "     2097152        524288   float     sum    0.187  11.21  11.21    0e+00    0.186  11.27  11.27    0e+00\n"
      " Out of bounds values : 0 OK\n"
      " Avg bus bandwidth    : 10.685 \n";
  const Side old = side_from_nccl_tests_text(v1, "all_reduce_perf.log");
  REQUIRE(old.rows.size() == 4);
  CHECK(old.rows.front().key.collective == &collective("all_reduce"));
  CHECK(old.rows.front().time_us == Approx(104.0));
  CHECK(old.rows.front().busbw_gbps == 10.08);
  CHECK(old.identity.ranks == 2);
  // 2.0 all_gather: a redop column whose cells are blank, no root column.
  const std::string v2 =
      "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n"
      "#\n# Using devices\n"
      "#   Rank  0 Pid  40211 on     node01 device  0 [0x07] Tesla V100-SXM2-32GB\n"
      "#   Rank  1 Pid  40211 on     node01 device  1 [0x0a] Tesla V100-SXM2-32GB\n#\n"
      "#                                                     out-of-place                       in-place          \n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
      "     1048576        131072   float            47.12   22.25   11.13  0e+00    46.95   22.33   11.17  0e+00\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 11.15 \n#\n";
  const Side gathered = side_from_nccl_tests_text(v2, "all_gather_perf.txt");
  REQUIRE(gathered.rows.size() == 2);
  CHECK(gathered.rows.front().key.collective == &collective("all_gather"));
  CHECK(gathered.rows.front().busbw_gbps == 11.13);
  CHECK(gathered.rows.back().busbw_gbps == 11.17);
}

TEST_CASE("nccl-tests -J JSON of schema versions 1 to 3 read; others are refused saying which") {
  const Side v1 = load_side(kFieldNcclTests / "reduce_scatter_perf-v1.json");
  const Side v2 = load_side(kFieldNcclTests / "all_reduce_perf-v2.json");
  const Side v3 = load_side(kNcclTestsData / "all_gather-j.json");
  for (const auto& [side, file, name] : {std::tuple{&v1, "reduce_scatter_perf-v1.json", "reduce_scatter"},
                                         std::tuple{&v2, "all_reduce_perf-v2.json", "all_reduce"}}) {
    INFO(file);
    const auto doc = nlohmann::json::parse(read_file(kFieldNcclTests / file));
    CHECK(side->rows.size() == 2 * doc.at("results").size());
    for (const auto& row : side->rows) CHECK(row.key.collective == &collective(name));
    const auto& first = doc.at("results").at(0);
    const SideRow* out = field_row(*side, first.at("size").get<Bytes>(), Placement::out_of_place);
    REQUIRE(out);
    CHECK(out->busbw_gbps == first.at("out_of_place").at("bus_bw").get<double>());
    CHECK(side->identity.ranks == 4);
  }
  CHECK_FALSE(v1.rows.front().measured_spread);  // version 1: no -I percentiles
  CHECK(v2.rows.front().measured_spread);
  CHECK(v3.rows.front().measured_spread);
  // Each version's own average, whatever the key's spelling ("bandwidith" before 2.17.9).
  REQUIRE(v1.printed_averages.size() == 1);
  REQUIRE(v2.printed_averages.size() == 1);
  std::string text = read_file(kNcclTestsData / "all_gather-j.json");
  for (const auto& [from, to, says] : {std::tuple{"\"version\":3", "\"version\":4", "schema version 4 is newer"},
                                       std::tuple{"\"version\":3", "\"version\":\"3\"", "'version' is \"3\""},
                                       std::tuple{"\"version\":3", "\"version\":0", "'version' is 0"}}) {
    std::string changed = text;
    changed.replace(changed.find(from), std::string(from).size(), to);
    CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_json(changed, "x.json"); }), ContainsSubstring(says));
  }
  // args[0] that names no program: the file name and the table decide, as for text.
  std::string renamed = text;
  renamed.replace(renamed.find("/opt/nccl-tests/build/all_gather_perf"), 37, "/usr/bin/bench");
  CHECK(side_from_nccl_tests_json(renamed, "all_gather.json").rows.front().key.collective == &collective("all_gather"));
  // Checked in both placements, only all_gather prints these results...
  const Side by_table = side_from_nccl_tests_json(renamed, "x.json");
  CHECK(by_table.rows.front().key.collective == &collective("all_gather"));
  REQUIRE(!by_table.notes.empty());
  CHECK_THAT(by_table.notes.front(), ContainsSubstring("recognised from its table"));
  // ...unchecked, alltoall prints them too.
  std::string unchecked = renamed;
  for (auto at = unchecked.find("\"nwrong\":0.000000"); at != std::string::npos; at = unchecked.find("\"nwrong\":0.000000")) {
    unchecked.replace(at, 17, "\"nwrong\":null");
  }
  CHECK_THAT(usage_error_text([&] { side_from_nccl_tests_json(unchecked, "x.json"); }),
             ContainsSubstring("its args[0] ('/usr/bin/bench') names no nccl-tests program"));
}

TEST_CASE("report prints nccl-tests' own Avg bus bandwidth with the digits the file prints") {
  for (const char* name : {"allreduce.log", "reducescatter.log", "bcast-2node.log", "job-88412.out"}) {
    INFO(name);
    const std::string text = read_file(kFieldNcclTests / name);
    std::ostringstream out;
    print_side_table(load_side(kFieldNcclTests / name), PrintStyle{}, out);
    CHECK_THAT(out.str(), ContainsSubstring("Avg bus bandwidth: " + printed_average(text) + " GB/s"));
  }
  // Rows of two dtypes in one test: the file's average covers both, so each group's is the rows' own.
  std::string text = read_file(kFieldNcclTests / "allreduce.log");
  const auto last = text.rfind("     float     sum");
  text.replace(last, 18, "      half     sum");
  std::ostringstream out;
  print_side_table(side_from_nccl_tests_text(text, "allreduce.log"), PrintStyle{}, out);
  CHECK(out.str().find("Avg bus bandwidth: " + printed_average(text) + " GB/s") == std::string::npos);
}

TEST_CASE("any nccl-tests file compared with itself is same in every row") {
  std::vector<std::filesystem::path> files;
  for (const auto& dir : {kFieldNcclTests, kNcclTestsData}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const auto ext = entry.path().extension().string();
      if (entry.path().filename() != "truncated.txt" && entry.path().filename() != "run3.txt" &&
          (ext == ".txt" || ext == ".log" || ext == ".out" || ext == ".json")) {
        files.push_back(entry.path());
      }
    }
  }
  REQUIRE(files.size() >= 12);
  for (const auto& path : files) {
    INFO(path.filename().string());
    const Side side = load_side(path);
    const Comparison c = compare_sides(side, side, {});
    REQUIRE(c.rows.size() == side.rows.size());
    for (const auto& r : c.rows) CHECK(verdict_name(r.verdict) == std::string("same"));
    CHECK(c.passed());
  }
}

TEST_CASE("file names name collectives as whole words; text names nccl-tests programs") {
  using Names = std::vector<std::string>;
  CHECK(collectives_in_file_name("/a/b/allreduce.log") == Names{"all_reduce"});
  CHECK(collectives_in_file_name("reducescatter.log") == Names{"reduce_scatter"});
  CHECK(collectives_in_file_name("all_reduce_perf.txt") == Names{"all_reduce"});
  CHECK(collectives_in_file_name("nccl-AllGather-8x.out") == Names{"all_gather"});
  CHECK(collectives_in_file_name("all2all_run1.log") == Names{"alltoall"});
  CHECK(collectives_in_file_name("alltoall.log") == Names{"alltoall"});
  CHECK(collectives_in_file_name("bcast.log") == Names{"broadcast"});
  CHECK(collectives_in_file_name("reduce.log") == Names{"reduce"});
  CHECK(collectives_in_file_name("allreduce-vs-reduce.txt") == Names{"all_reduce", "reduce"});
  CHECK(collectives_in_file_name("allgatherv.log").empty());
  CHECK(collectives_in_file_name("results.txt").empty());
  CHECK(collectives_in_file_name("reduced-set.txt").empty());  // "reduced" is not "reduce"
  CHECK(programs_named_in("+ mpirun -np 8 ./build/all_reduce_perf -b 8 -e 128M") == Names{"all_reduce"});
  CHECK(programs_named_in("srun all_gather_perf_mpi -g 1") == Names{"all_gather"});
  CHECK(programs_named_in("for t in all_reduce_perf sendrecv_perf; do") == Names{"all_reduce", "sendrecv"});
  CHECK(programs_named_in("my_perf run, allreduce_perf2").empty());
  CHECK(half_last_digit("245.62") == Approx(0.005));
  CHECK(half_last_digit("1235") == Approx(0.5));
  CHECK(half_last_digit("1.2e+03") == Approx(50));
}
