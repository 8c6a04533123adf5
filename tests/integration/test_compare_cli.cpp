// `ncclsweep compare` and `ncclsweep report` as a user runs them: exit statuses 0/1/2,
// on nccl-tests fixtures and on a real small mpi-engine run.
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "nccl_tests_scaling.hpp"
#include "read_file.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;

namespace {


void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// The row of `size` with its time x1.25 and algbw, busbw x0.8 (20% slower), printed
// as nccl-tests prints them.
std::string make_size_slower(const std::string& text, const std::string& size) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.size() == 13 && w[0] == size) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%12s  %12s  %8s  %6s  %6s  %7.2f  %6.2f  %6.2f  %6s  %7.2f  %6.2f  %6.2f  %6s",
                    w[0].c_str(), w[1].c_str(), w[2].c_str(), w[3].c_str(), w[4].c_str(), std::stod(w[5]) * 1.25,
                    std::stod(w[6]) * 0.8, std::stod(w[7]) * 0.8, w[8].c_str(), std::stod(w[9]) * 1.25,
                    std::stod(w[10]) * 0.8, std::stod(w[11]) * 0.8, w[12].c_str());
      line = buf;
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("compare: nccl-tests output against itself passes") {
  const auto original = (kNcclTestsData / "nccl-tests-all_gather-np2.txt").string();
  const Launch same = run_ncclsweep({"compare", original, original});
  INFO(same.output);
  CHECK(same.status == 0);
  CHECK_THAT(same.output, ContainsSubstring("14 rows: 14 same -> PASS"));
}

TEST_CASE("compare: one size made 20% slower fails with exit 1 and names that size") {
  const auto dir = scratch_dir("compare-slower");
  const auto original = kNcclTestsData / "nccl-tests-all_gather-np2.txt";
  const auto slower = dir / "slower.txt";
  write(slower, make_size_slower(read_file(original), "67108864"));
  for (const char* format : {"table", "md", "json"}) {
    const Launch run = run_ncclsweep({"compare", slower.string(), original.string(), "--format", format});
    INFO(format << "\n" << run.output);
    CHECK(run.status == 1);
    CHECK_THAT(run.output, ContainsSubstring("FAIL: below 95% of reference at all_gather float32 64 MiB, all_gather float32 64 MiB in-place"));
    CHECK_THAT(run.output, ContainsSubstring("-20.0%"));
  }
  // The SVG carries the same verdicts: the summary under the title, a red cross per
  // failing row (two placements of 64 MiB) plus the legend's.
  const Launch svg = run_ncclsweep({"compare", slower.string(), original.string(), "--format", "svg"});
  INFO(svg.output);
  CHECK(svg.status == 1);
  CHECK_THAT(svg.output, ContainsSubstring("FAIL: below 95% of reference at all_gather float32 64 MiB"));
  std::size_t crosses = 0;
  for (auto at = svg.output.find("stroke=\"#c00\""); at != std::string::npos; at = svg.output.find("stroke=\"#c00\"", at + 1)) ++crosses;
  CHECK(crosses == 3);
  // The original against the slower copy: that size is faster, which passes.
  const Launch reverse = run_ncclsweep({"compare", original.string(), slower.string()});
  INFO(reverse.output);
  CHECK(reverse.status == 0);
  CHECK_THAT(reverse.output, ContainsSubstring("2 faster"));
}

TEST_CASE("compare: two real launches of one tool pass, the band is in the header, and it can be overridden") {
  const auto first = (kNcclTestsData / "nccl-tests-all_gather-np2.txt").string();
  const auto second = (kNcclTestsData / "nccl-tests-all_gather-np2-launch2.txt").string();
  // 1 MiB: 37.58 against 44.09 GB/s, 13.95 against 11.89 us: launch jitter, not a regression.
  const Launch run = run_ncclsweep({"compare", first, second});
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("-> PASS"));
  CHECK_THAT(run.output, ContainsSubstring("noise band: +-4% + 1.1 us of time per single figure"));
  const Launch md = run_ncclsweep({"compare", first, second, "--format", "md"});
  CHECK_THAT(md.output, ContainsSubstring("- noise band: +-4% + 1.1 us"));
  const Launch json = run_ncclsweep({"compare", first, second, "--format", "json", "--noise-us", "2", "--noise-rel", "0.05"});
  INFO(json.output);
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.output);
  CHECK(doc["noise"]["time_us"] == 2.0);
  CHECK(doc["noise"]["relative"] == 0.05);
  // No time jitter and a 3% band: the slower launch's 1 MiB rows fail.
  const Launch strict = run_ncclsweep({"compare", first, second, "--noise-us", "0", "--noise-rel", "0.03"});
  INFO(strict.output);
  CHECK(strict.status == 1);
  CHECK_THAT(strict.output, ContainsSubstring("FAIL: below 95% of reference at all_gather float32 1 MiB"));
  // ... unless only the bandwidth-bound sizes are judged.
  const Launch large = run_ncclsweep({"compare", first, second, "--noise-us", "0", "--noise-rel", "0.03", "--min-size", "4M"});
  INFO(large.output);
  CHECK(large.status == 0);
  CHECK_THAT(large.output, ContainsSubstring("12 rows:"));
  CHECK_THAT(large.output, ContainsSubstring("note: 2 matching rows below --min-size 4 MiB get no verdict"));
  const Launch typo = run_ncclsweep({"compare", first, second, "--min-size", "4Q"});
  INFO(typo.output);
  CHECK(typo.status == 2);
}

TEST_CASE("compare: the summary line comes first, and -o writes the document") {
  const auto dir = scratch_dir("compare-output");
  std::filesystem::create_directories(dir);
  const auto original = (kNcclTestsData / "nccl-tests-all_gather-np2.txt").string();
  const Launch run = run_ncclsweep({"compare", original, original, "--format", "md", "-o", (dir / "c.md").string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  // Stdout keeps the two lines a CI log needs: the summary and the acceptance gate's.
  CHECK(run.output.starts_with("14 rows: 14 same -> PASS: acceptance 1.00 of reference"));
  CHECK(occurrences(run.output, "\n") == 2);
  CHECK_THAT(run.output, ContainsSubstring("\nacceptance at target 0.95: PASS, NEW at 1.00 of REFERENCE"));
  CHECK(read_file(dir / "c.md").starts_with("**14 rows: 14 same -> PASS: acceptance 1.00 of reference"));
}

TEST_CASE("compare --target: a real table made 10, 6, 4 and 0% slower exits 1, 1 or 5, 0 or 5, and 0; the gate is the last word") {
  const auto dir = scratch_dir("compare-target");
  const auto reference = kNcclTestsData / "nccl-tests-all_gather-g2-8B-8G.txt";
  const std::string text = read_file(reference);
  std::map<int, std::string> verdicts;  // percent -> the gate's verdict
  for (int percent : {90, 94, 96, 100}) {
    const auto scaled = dir / ("all_gather-" + std::to_string(percent) + ".txt");
    write(scaled, scaled_nccl_tests(text, percent / 100.0));
    const std::vector<std::string> base{"compare", scaled.string(), reference.string(), "--min-size", "1M"};
    const Launch json = run_ncclsweep(with(base, {"--format", "json"}));
    INFO(percent << "%\n" << json.output);
    const auto doc = nlohmann::json::parse(json.output);
    const auto& gate = doc.at("acceptance");
    verdicts[percent] = gate.at("verdict").get<std::string>();
    CHECK(doc.at("exit_status") == json.status);
    CHECK(json.status == (verdicts[percent] == "PASS" ? 0 : verdicts[percent] == "FAIL" ? 1 : 5));
    CHECK(gate.at("target") == 0.95);
    CHECK(gate.at("rows") == 28);
    CHECK(gate.at("ratio").get<double>() == Approx(percent / 100.0).margin(0.003));
    if (verdicts[percent] == "UNRESOLVED") {
      // The repeats that would settle it, in every format's last line.
      const int repeats = gate.at("repeats_to_settle").get<int>();
      const std::string named = "measuring NEW with --repeats " + std::to_string(repeats) + " (now 1) would settle it";
      CHECK_THAT(gate.at("line").get<std::string>(), ContainsSubstring(named));
      for (const char* format : {"table", "md"}) {
        const Launch printed = run_ncclsweep(with(base, {"--format", format}));
        INFO(format << "\n" << printed.output);
        CHECK(printed.status == 5);
        CHECK_THAT(printed.output, ContainsSubstring("-> UNRESOLVED: acceptance"));
        const std::string last = printed.output.substr(printed.output.rfind("acceptance at target"));
        CHECK_THAT(last, ContainsSubstring(named));
        CHECK(last.find('\n') == last.size() - 1);  // the last line
      }
    }
  }
  CHECK(verdicts[90] == "FAIL");
  CHECK(verdicts[94] != "PASS");
  CHECK(verdicts[96] != "FAIL");
  CHECK(verdicts[100] == "PASS");
  // --target 0: no gate, and the rows alone pass the 94% table as before.
  const Launch off = run_ncclsweep({"compare", (dir / "all_gather-94.txt").string(), reference.string(), "--min-size",
                                    "1M", "--target", "0", "--format", "json"});
  INFO(off.output);
  CHECK(off.status == 0);
  CHECK(nlohmann::json::parse(off.output).at("acceptance").is_null());
  CHECK_THAT(run_ncclsweep({"compare", (dir / "all_gather-94.txt").string(), reference.string(), "--target", "-1"}).output,
             ContainsSubstring("--target"));
}

TEST_CASE("compare: bad input and nothing comparable exit 2 with a reason") {
  const auto dir = scratch_dir("compare-bad");
  const auto all_gather = (kNcclTestsData / "nccl-tests-all_gather-np2.txt").string();
  const auto reduce_scatter = (kNcclTestsData / "nccl-tests-reduce_scatter-np2.txt").string();
  const auto four_ranks = (kNcclTestsData / "all_reduce-nthread2-ngpus2-per-iter.txt").string();
  write(dir / "empty.txt", "");
  write(dir / "newer" / "run.json", R"({"schema_version": 99, "records": []})");
  {
    std::ofstream binary(dir / "binary.bin", std::ios::binary);
    binary << std::string("\x89PNG\r\n\x1a\n\0\0\0", 11);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"compare", all_gather, reduce_scatter}, "nothing to compare"},
      {{"compare", four_ranks, all_gather}, "NEW ran on 4 ranks, REFERENCE on 2"},
      {{"compare", (dir / "missing.txt").string(), all_gather}, "does not exist"},
      {{"compare", (dir / "empty.txt").string(), all_gather}, "is empty"},
      {{"compare", (dir / "binary.bin").string(), all_gather}, "binary file"},
      {{"compare", (dir / "newer").string(), all_gather}, "schema version 99 is newer"},
      {{"compare", (kNcclTestsData / "truncated.txt").string(), all_gather}, "truncated"},
      {{"compare", all_gather, all_gather, "--format", "csv"}, "'csv' is not one of table, md, json, svg"},
  };
  for (const auto& [args, message] : cases) {
    const Launch run = run_ncclsweep(args);
    INFO(args[1] << "\n" << run.output);
    CHECK(run.status == 2);
    CHECK_THAT(run.output, ContainsSubstring(message));
  }
}

TEST_CASE("an mpi-engine run writes summary.md, reports in every format and compares with itself", "[leaks]") {
  const auto dir = scratch_dir("compare-run");
  const Launch run = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "all_gather,all_reduce", "--sizes",
                                          "64K:1M:x4", "--warmup", "1", "--iters", "3", "-o", (dir / "a").string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const std::string summary = read_file(dir / "a" / "summary.md");
  CHECK_THAT(summary, ContainsSubstring("all_gather float32"));
  CHECK_THAT(summary, ContainsSubstring("| 1 MiB |"));
  CHECK_THAT(summary, ContainsSubstring("2 ranks on 1 host(s)"));
  for (const char* format : {"table", "md", "csv", "json", "svg"}) {
    const Launch report = run_ncclsweep({"report", (dir / "a").string(), "--format", format});
    INFO(format << "\n" << report.output);
    CHECK(report.status == 0);
    CHECK_THAT(report.output, ContainsSubstring("all_gather"));
  }
  // Against itself no row moves; the acceptance gate's interval is this CPU run's own
  // noise (3 calls a size), which can span 95% on a loaded machine: PASS or UNRESOLVED,
  // never FAIL, and the exit status says which.
  const Launch same = run_ncclsweep({"compare", (dir / "a").string(), (dir / "a" / "run.json").string()});
  INFO(same.output);
  REQUIRE((same.status == 0 || same.status == 5));
  const std::string verdict = same.status == 0 ? "PASS" : "UNRESOLVED";
  CHECK_THAT(same.output, ContainsSubstring("-> " + verdict + ": acceptance 1.00 of reference"));
  CHECK_THAT(same.output, ContainsSubstring("acceptance at target 0.95: " + verdict + ", NEW at 1.00 of REFERENCE"));
  const Launch rows_only = run_ncclsweep({"compare", (dir / "a").string(), (dir / "a").string(), "--target", "0"});
  INFO(rows_only.output);
  CHECK(rows_only.status == 0);
  CHECK_THAT(rows_only.output, ContainsSubstring("-> PASS"));
  // A run against nccl-tests output of other ranks and sizes: nothing comparable.
  const Launch other = run_ncclsweep({"compare", (dir / "a").string(), (kNcclTestsData / "all_reduce-old-format.txt").string()});
  INFO(other.output);
  CHECK(other.status == 2);
}

TEST_CASE("report: colour never reaches a pipe, and -o writes a file") {
  const auto dir = scratch_dir("report-output");
  std::filesystem::create_directories(dir);
  const auto original = (kNcclTestsData / "nccl-tests-all_gather-np2.txt").string();
  const Launch table = run_ncclsweep({"report", original});
  INFO(table.output);
  CHECK(table.status == 0);
  CHECK(table.output.find('\033') == std::string::npos);
  CHECK_THAT(table.output, ContainsSubstring("327"));
  const Launch csv = run_ncclsweep({"report", original, "--format", "csv", "-o", (dir / "r.csv").string()});
  CHECK(csv.status == 0);
  CHECK(read_file(dir / "r.csv").starts_with("source,name,"));
}

TEST_CASE("report: several inputs overlay in one SVG or print in turn; other formats and bad inputs leave -o alone") {
  const auto dir = scratch_dir("report-several");
  std::filesystem::create_directories(dir);
  const auto one = (kNcclTestsData / "nccl-tests-all_gather-np2.txt").string();
  const auto two = (kNcclTestsData / "nccl-tests-all_gather-np2-launch2.txt").string();
  const Launch svg = run_ncclsweep({"report", one, two, "--format", "svg", "-o", (dir / "overlay.svg").string()});
  INFO(svg.output);
  CHECK(svg.status == 0);
  CHECK_THAT(read_file(dir / "overlay.svg"), ContainsSubstring("2 inputs overlaid"));
  const Launch tables = run_ncclsweep({"report", one, two});
  CHECK(tables.status == 0);
  CHECK_THAT(tables.output, ContainsSubstring("== " + one + " =="));
  CHECK_THAT(tables.output, ContainsSubstring("== " + two + " =="));
  // Refused before anything is written: the earlier report in -o survives.
  write(dir / "kept.csv", "an earlier report\n");
  const Launch csv = run_ncclsweep({"report", one, two, "--format", "csv", "-o", (dir / "kept.csv").string()});
  CHECK(csv.status == 2);
  CHECK_THAT(csv.output, ContainsSubstring("takes one input"));
  const Launch missing = run_ncclsweep({"report", one, (dir / "absent.txt").string(), "--format", "svg", "-o",
                                        (dir / "kept.csv").string()});
  CHECK(missing.status == 2);
  CHECK(read_file(dir / "kept.csv") == "an earlier report\n");
}
