// Collectives under compute end to end with the mpi engine's CPU antagonist
// (docs/overlap.md): it slows the collectives measurably, both slowdowns reach run.json
// and every report format, and the output says it is a CPU analogue.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

TEST_CASE("the CPU antagonist slows the mpi engine's collectives, and every format shows both slowdowns", "[leaks]") {
  const auto dir = scratch_dir("under-compute");
  // Two ranks on the two cores, each with a multiply thread pinned to its own cores.
  const Launch run = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "1M,4M",
                                          "--iters", "20", "--warmup", "2", "--with-compute", "gemm:128x128x128:float32",
                                          "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("CPU analogue"));
  const json doc = read_json_file(dir / "run.json");
  const json& records = doc.at("records");
  REQUIRE(records.size() == 4);  // 2 sizes x 2 placements
  double highest = 0;
  for (const json& r : records) {
    const json& u = r.at("under_compute");
    CHECK(u.at("compute") == "gemm:128x128x128:float32");
    CHECK(u.at("site") == "cpu-analogue");
    CHECK(u.at("comm_alone_us").get<double>() > 0);
    CHECK(u.at("compute_alone_us").get<double>() > 0);
    CHECK(u.at("compute_under_us").get<double>() > 0);
    CHECK(u.at("tflops_alone").get<double>() > 0);
    CHECK(u.at("serial_sum_us").get<double>() > 0);
    highest = std::max(highest, u.at("comm_slowdown").get<double>());
  }
  // A thread multiplying on the rank's own core takes its time from the collective.
  CHECK(highest > 1.2);
  bool noted = false;
  for (const json& note : doc.at("notes")) noted = noted || note.get<std::string>().find("CPU analogue") != std::string::npos;
  CHECK(noted);

  const Launch table = run_ncclsweep({"report", dir.string()});
  CHECK(table.status == 0);
  CHECK_THAT(table.output, ContainsSubstring("Under compute: gemm 128x128x128 float32 (cpu-analogue)"));
  CHECK_THAT(table.output, ContainsSubstring("compute slowdown"));
  const Launch md = run_ncclsweep({"report", dir.string(), "-f", "md"});
  CHECK_THAT(md.output, ContainsSubstring("| comm slowdown |"));
  const Launch csv = run_ncclsweep({"report", dir.string(), "--compute", "only", "-f", "csv"});
  CHECK(csv.status == 0);
  CHECK_THAT(csv.output, ContainsSubstring("comm_slowdown"));
  CHECK_THAT(csv.output, ContainsSubstring("compute_slowdown"));
  const Launch js = run_ncclsweep({"report", dir.string(), "--compute", "only", "-f", "json"});
  REQUIRE(js.status == 0);
  const json report = json::parse(js.output);
  CHECK(report.at("rows").size() == 4);
  CHECK(report.at("settings").at(0).at("comm_slowdown").get<double>() > 1);
  const Launch svg = run_ncclsweep({"report", dir.string(), "--compute", "only", "-f", "svg"});
  CHECK_THAT(svg.output, ContainsSubstring("<circle"));
  CHECK_THAT(svg.output, ContainsSubstring("comm slowdown"));
}

TEST_CASE("a bad --with-compute is a usage error naming the flag") {
  const Launch run = mpirun_ncclsweep(1, {"run", "--engine", "mpi", "--sizes", "1M", "--with-compute", "gemm:8x8:bf16",
                                          "-o", scratch_dir("bad-compute").string()});
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("--with-compute 'gemm:8x8:bf16'"));
}
