// Repeats, their order, and the noise-based stop, end to end under mpirun -np 4 with
// the mpi engine.
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

TEST_CASE("--repeats 3 interleaved runs A B A B A B, each repeat recorded") {
  const auto dir = scratch_dir("repeats-interleaved");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "4K,64K",
                                          "--iters", "2", "--warmup", "0", "--repeats", "3", "--order", "interleaved",
                                          "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json records = read_json_file(dir / "run.json").at("records");
  REQUIRE(records.size() == 2 * 3 * 2);  // sizes x repeats x placements
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::size_t visit = i / 2;  // one row (two placements) per visit
    INFO("record " << i);
    CHECK(records[i].at("requested_bytes") == (visit % 2 == 0 ? 4096 : 65536));
    CHECK(records[i].at("repeat") == static_cast<int>(visit / 2));
    CHECK(records[i].at("iters") == 2);
    CHECK(records[i].at("stopped_by") == "fixed");
  }
}

TEST_CASE("sequential repeats run each size's repeats back to back") {
  const auto dir = scratch_dir("repeats-sequential");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "4K,64K",
                                          "--iters", "2", "--warmup", "0", "--repeats", "2", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json records = read_json_file(dir / "run.json").at("records");
  REQUIRE(records.size() == 8);
  const int expected_bytes[] = {4096, 4096, 65536, 65536};
  for (std::size_t visit = 0; visit < 4; ++visit) {
    CHECK(records[2 * visit].at("requested_bytes") == expected_bytes[visit]);
    CHECK(records[2 * visit].at("repeat") == static_cast<int>(visit % 2));
  }
}

TEST_CASE("the noise-based stop stops between its min and max iterations") {
  const auto dir = scratch_dir("noise-stop");
  // An unreachable target: timing runs to --max-iters and says so.
  const Launch strict = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_gather", "--sizes", "64K",
                                             "--min-iters", "4", "--max-iters", "30", "--target-spread", "0",
                                             "--min-time", "0", "-o", (dir / "strict").string()});
  INFO(strict.output);
  REQUIRE(strict.status == 0);
  for (const json& r : read_json_file(dir / "strict" / "run.json").at("records")) {
    CHECK(r.at("iters") == 30);
    CHECK(r.at("stopped_by") == "max_iters");
    const json& it = r.at("iteration_us");
    CHECK(it.at("min").get<double>() <= it.at("p50").get<double>());
    CHECK(it.at("p50").get<double>() <= it.at("p99").get<double>());
    CHECK(it.at("p99").get<double>() <= it.at("max").get<double>());
    CHECK(r.at("slowest_rank").get<int>() >= 0);
    CHECK(r.at("slowest_rank").get<int>() < 4);
    CHECK(r.at("slowest_rank_iterations").get<int>() >= 30 / 4);  // the most often of 4 ranks
  }
  // A loose target: reached once the minimum is timed, well before the maximum.
  const Launch loose = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_gather", "--sizes", "64K",
                                            "--min-iters", "4", "--max-iters", "1000", "--target-spread", "0.9",
                                            "--min-time", "0", "-o", (dir / "loose").string()});
  INFO(loose.output);
  REQUIRE(loose.status == 0);
  for (const json& r : read_json_file(dir / "loose" / "run.json").at("records")) {
    CHECK(r.at("stopped_by") == "spread");
    CHECK(r.at("iters").get<int>() >= 4);
    CHECK(r.at("iters").get<int>() < 1000);
    CHECK(r.at("spread").get<double>() <= 0.9);
  }
}

TEST_CASE("--min-iters above --max-iters is refused") {
  const Launch run = mpirun_ncclsweep(1, {"run", "--engine", "mpi", "--min-iters", "50", "--max-iters", "10"});
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("--min-iters 50 is above --max-iters 10"));
}

TEST_CASE("run --probe writes the platform figures beside the run and shows them after its tables") {
  const auto dir = scratch_dir("run-probe");
  const Launch run = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "64K",
                                          "--iters", "2", "--warmup", "0", "--probe", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK(std::filesystem::exists(dir / "probe" / "records.jsonl"));
  const auto table = run.output.find("# results: " + dir.string());
  const auto figures = run.output.find("# probe results in " + (dir / "probe").string());
  REQUIRE(table != std::string::npos);
  REQUIRE(figures != std::string::npos);
  CHECK(table < figures);

  // `probe -o` the run's own directory would replace its records.jsonl: refused first.
  const auto records_size = std::filesystem::file_size(dir / "records.jsonl");
  const Launch probe = mpirun_ncclsweep(2, {"probe", "--engine", "mpi", "-o", dir.string()});
  INFO(probe.output);
  CHECK(probe.status == 2);
  CHECK_THAT(probe.output, ContainsSubstring("holds another command's results"));
  CHECK(std::filesystem::file_size(dir / "records.jsonl") == records_size);
}
