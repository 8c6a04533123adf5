// End-to-end runs of the real binary under mpirun -np 4 with the mpi engine, and the two
// nccl-engine sweeps that show the worker processes (verified on 2+ GPUs, refused on none).
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "integration/launch.hpp"
#include "read_file.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

std::size_t count_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("every collective runs on 4 ranks and every size lands in run.json, checked") {
  const auto dir = scratch_dir("all-collectives");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all", "--sizes", "1K:1M:x4",
                                          "--warmup", "1", "--iters", "3", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("busbw"));
  const json doc = read_json_file(dir / "run.json");
  CHECK(doc.at("status") == "complete");
  CHECK(doc.at("schema_version") == 1);
  CHECK(doc.at("ranks").size() == 4);
  CHECK(doc.at("settings").at("engine") == "mpi");
  std::set<std::pair<std::string, std::uint64_t>> seen;
  for (const json& r : doc.at("records")) {
    CHECK(r.at("busbw_gbps").get<double>() > 0);
    CHECK(r.at("wrong") == 0);
    CHECK(r.at("time_us").at("min").get<double>() <= r.at("time_us").at("max").get<double>());
    seen.emplace(r.at("collective"), r.at("requested_bytes"));
  }
  // 7 collectives x 6 sizes (1K 4K 16K 64K 256K 1M), each present.
  CHECK(seen.size() == 7 * 6);
  // out-of-place for all 7, in-place for the 5 that support it.
  CHECK(doc.at("records").size() == 6 * (7 + 5));
  CHECK(count_lines(dir / "records.jsonl") == doc.at("records").size());
}

TEST_CASE("integer and float reductions with every MPI op are exact") {
  const auto dir = scratch_dir("ops");
  const Launch run =
      mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_reduce,reduce_scatter,reduce", "--sizes",
                           "4K", "--dtype", "int8,uint8,int32,uint32,int64,uint64,float32,float64", "--ops",
                           "sum,prod,max,min", "--root", "2", "--iters", "2", "--warmup", "0", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json doc = read_json_file(dir / "run.json");
  CHECK(doc.at("records").size() == 3 * 8 * 4 * 2);
  for (const json& r : doc.at("records")) CHECK(r.at("wrong") == 0);
}

TEST_CASE("a deliberately corrupted receive buffer is counted as wrong and fails the run") {
  const auto dir = scratch_dir("corrupt");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_gather", "--sizes", "64K",
                                          "--iters", "2", "--inject-corrupt-rank", "1", "-o", dir.string()});
  INFO(run.output);
  CHECK(run.status == 3);
  CHECK_THAT(run.output, ContainsSubstring("held wrong values"));
  const json doc = read_json_file(dir / "run.json");
  REQUIRE(doc.at("records").size() == 2);
  for (const json& r : doc.at("records")) CHECK(r.at("wrong") == 1);
}

TEST_CASE("--check 0 records no wrong count") {
  const auto dir = scratch_dir("nocheck");
  const Launch run = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "sendrecv", "--sizes", "64K",
                                          "--check", "0", "--iters", "2", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK(read_json_file(dir / "run.json").at("records")[0].at("wrong").is_null());
  CHECK_THAT(run.output, ContainsSubstring("N/A"));
}

TEST_CASE("a size that is not a multiple of ranks x element is rounded down and said", "[leaks]") {
  const auto dir = scratch_dir("rounding");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_gather", "--sizes", "1000",
                                          "--iters", "2", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("1000 B rounded down to 992 B"));
  const json r = read_json_file(dir / "run.json").at("records")[0];
  CHECK(r.at("size_bytes") == 992);
  CHECK(r.at("requested_bytes") == 1000);
  CHECK(r.at("count") == 62);
}

TEST_CASE("bad command lines exit 2 with a message and measure nothing") {
  const auto dir = scratch_dir("bad");
  const Launch unknown = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "allgather", "-o", dir.string()});
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.output, ContainsSubstring("unknown collective 'allgather'"));
  CHECK_THAT(unknown.output, ContainsSubstring("all_gather"));
  CHECK_FALSE(std::filesystem::exists(dir / "run.json"));

  const Launch size = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--sizes", "1M:1G:x1", "-o", dir.string()});
  CHECK(size.status == 2);
  CHECK_THAT(size.output, ContainsSubstring("factor must be > 1"));

  const Launch bf16 = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--dtype",
                                           "bfloat16", "-o", dir.string()});
  CHECK(bf16.status == 2);
  CHECK_THAT(bf16.output, ContainsSubstring("cannot reduce bfloat16"));

  const Launch engine = mpirun_ncclsweep(2, {"run", "--engine", "gloo", "-o", dir.string()});
  CHECK(engine.status == 2);
  CHECK_THAT(engine.output, ContainsSubstring("--engine: 'gloo' is not one of nccl, mpi"));

  const Launch flag = run_ncclsweep({"run", "--iters", "0"});
  CHECK(flag.status == 2);
  const Launch dtype = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--dtype", "float128"});
  CHECK(dtype.status == 2);
  CHECK_THAT(dtype.output, ContainsSubstring("unknown dtype 'float128'"));
}

// A bad value in a sweep file, under mpirun: the leak-checked run of the refusal that
// tests/cli/test_bad_values.sh checks for every value with a singleton `run`.
TEST_CASE("a bad value in a sweep file stops every rank with exit 2 before measuring", "[leaks]") {
  const auto dir = scratch_dir("bad-value");
  const std::string file = NCCLSWEEP_SOURCE_DIR "/tests/data/bad-values/files/proto-typo.yaml";
  const Launch refused = mpirun_ncclsweep(2, {"run", file, "-o", dir.string()});
  INFO(refused.output);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, ContainsSubstring("proto-typo.yaml:3:20: NCCL_PROTO: unknown protocol 'Simpel' "
                                               "(did you mean Simple?)"));
  CHECK_FALSE(std::filesystem::exists(dir / "run.json"));
}

TEST_CASE("data movement of 16-bit and fp8 dtypes is checked with the mpi engine too") {
  const auto dir = scratch_dir("small-types");
  const Launch run = mpirun_ncclsweep(3, {"run", "--engine", "mpi", "--collectives", "all_gather,alltoall,broadcast",
                                          "--sizes", "3K", "--dtype", "float16,bfloat16,fp8_e4m3,fp8_e5m2", "--root",
                                          "1", "--iters", "2", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  for (const json& r : read_json_file(dir / "run.json").at("records")) CHECK(r.at("wrong") == 0);
}

// With one rank NCCL never reads NCCL_PROTO, so the smoke sweep's settings can be verified
// only with two ranks, each on its own GPU.
constexpr const char* kProtoNeedsTwoGpus =
    "needs 0 GPUs (the refusal) or 2 (one per rank): with one rank NCCL does not read NCCL_PROTO, 1 GPU visible";

TEST_CASE("a sweep with the nccl engine runs in worker processes: verified on a GPU, refused without one") {
  if (visible_gpu_count() == 1) NCCLSWEEP_SKIP(kProtoNeedsTwoGpus);
  const auto dir = scratch_dir("nccl-sweep");
  const Launch run = mpirun_ncclsweep(2, {"run", std::string(NCCLSWEEP_SOURCE_DIR) + "/sweeps/smoke.yaml", "-o",
                                          dir.string()});
  INFO(run.output);
  if (run.output.find("no GPU visible") != std::string::npos) {
    // CI: both workers exit early; the ranks agree, say it once and measure nothing.
    CHECK(run.status == 2);
    CHECK(run.output.find("no GPU visible") == run.output.rfind("no GPU visible"));
    CHECK_THAT(run.output, ContainsSubstring("use --engine mpi"));
    CHECK_FALSE(std::filesystem::exists(dir / "run.json"));
  } else {
    // The GPU machine: both points measured, NCCL_PROTO verified from NCCL's own log.
    REQUIRE(run.status == 0);
    const json doc = read_json_file(dir / "run.json");
    REQUIRE(doc.at("points").size() == 2);
    for (const json& p : doc.at("points")) {
      CHECK(p.at("status") == "ok");
      CHECK(p.at("settings")[0].at("status") == "applied");
    }
    CHECK_THAT(run.output, ContainsSubstring("sweep summary"));
  }
}

TEST_CASE("--env and --config without a sweep file make a sweep: refused by the mpi engine, points with nccl") {
  const auto dir = scratch_dir("flag-axes");
  const Launch mpi = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "64K",
                                          "--env", "NCCL_PROTO=LL,Simple", "-o", dir.string()});
  INFO(mpi.output);
  CHECK(mpi.status == 2);  // never measured as if the setting had applied
  CHECK_THAT(mpi.output, ContainsSubstring("the mpi engine cannot apply NCCL variables"));
  CHECK_FALSE(std::filesystem::exists(dir / "run.json"));

  if (visible_gpu_count() == 1) NCCLSWEEP_SKIP(kProtoNeedsTwoGpus);
  const Launch nccl = mpirun_ncclsweep(2, {"run", "--engine", "nccl", "--collectives", "all_reduce", "--sizes", "64K",
                                           "--iters", "2", "--env", "NCCL_PROTO=LL,Simple", "--config", "max_ctas=8",
                                           "-o", dir.string()});
  INFO(nccl.output);
  if (nccl.output.find("no GPU visible") != std::string::npos) {
    CHECK(nccl.status == 2);  // CI: the points went to workers, which found no GPU
  } else {
    REQUIRE(nccl.status == 0);
    const json doc = read_json_file(dir / "run.json");
    REQUIRE(doc.at("points").size() == 2);
    CHECK(doc.at("points")[0].at("label") == "NCCL_PROTO=LL max_ctas=8");
    for (const json& p : doc.at("points")) CHECK(p.at("status") == "ok");
  }
}

TEST_CASE("one rank: busbw is 0 for the (n-1)/n collectives, and the header and the summary say why") {
  const auto dir = scratch_dir("one-rank");
  const Launch run = mpirun_ncclsweep(1, {"run", "--engine", "mpi", "--collectives", "all_gather,broadcast", "--sizes",
                                          "64K", "--warmup", "0", "--iters", "2", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const std::size_t header = run.output.find("# note: one rank: busbw is 0 by definition");
  const std::size_t first_table = run.output.find("# all_gather");
  const std::size_t summary = run.output.find("\n# one rank: busbw is 0 by definition", first_table);
  CHECK(header < first_table);
  CHECK(summary != std::string::npos);
  CHECK_THAT(run.output, ContainsSubstring("what one process shows alone"));
  CHECK_THAT(run.output, ContainsSubstring("mpirun -np 2, or srun -N 2"));
  const json doc = read_json_file(dir / "run.json");
  for (const json& r : doc.at("records")) {
    CHECK(r.at("wrong") == 0);
    CHECK(r.at("algbw_gbps").get<double>() > 0);
    if (r.at("collective") == "all_gather") CHECK(r.at("busbw_gbps").get<double>() == 0);
    if (r.at("collective") == "broadcast") CHECK(r.at("busbw_gbps") == r.at("algbw_gbps"));
  }
  bool noted = false;
  for (const json& note : doc.at("notes")) noted = noted || note.get<std::string>().rfind("one rank: busbw", 0) == 0;
  CHECK(noted);
  CHECK_THAT(read_file(dir / "summary.md"), ContainsSubstring("busbw is 0 by definition"));
}

TEST_CASE("the environment each point ran with: the launcher's on the mpi engine, the run's plus the point's on workers") {
  // The mpi engine never loads NCCL and runs no sweep points (it refuses env axes): what it
  // records is each rank's NCCL_ and launcher variables as mpirun gave them.
  const auto dir = scratch_dir("point-environment-mpi");
  const Launch mpi = mpirun_mpmd({{4,
                                   {"NCCL_ALGO=Ring", "NCCL_DEBUG=WARN"},
                                   {"run", std::string(NCCLSWEEP_SOURCE_DIR) + "/sweeps/smoke-mpi.yaml", "--collectives",
                                    "all_reduce", "--sizes", "64K", "--dtype", "float32", "--op", "sum", "-o",
                                    dir.string()}}});
  INFO(mpi.output);
  REQUIRE(mpi.status == 0);
  const json doc = read_json_file(dir / "run.json");
  CHECK(doc.at("points").empty());
  REQUIRE(doc.at("ranks").size() == 4);
  for (const json& r : doc.at("ranks")) {
    CHECK(r.at("environment").at("NCCL_ALGO") == "Ring");
    CHECK(r.at("environment").at("OMPI_COMM_WORLD_RANK") == std::to_string(r.at("rank").get<int>()));
  }
  for (const json& r : doc.at("records")) CHECK(r.at("point") == "default");

  // The nccl engine: each point's init saw the run's NCCL_ALGO and its own NCCL_PROTO only.
  const auto workers_dir = scratch_dir("point-environment-nccl");
  const Launch nccl = mpirun_mpmd({{2,
                                     {"NCCL_ALGO=Ring"},
                                     {"run", "--engine", "nccl", "--collectives", "all_reduce", "--sizes", "64K",
                                      "--iters", "2", "--env", "NCCL_PROTO=LL,Simple", "-o", workers_dir.string()}}});
  INFO(nccl.output);
  if (nccl.output.find("no GPU visible") != std::string::npos || nccl.output.find("both drive GPU") != std::string::npos) {
    CHECK(nccl.status == 2);  // CI: the workers found no GPU; a 1-GPU machine: two ranks, one GPU
    return;                   // (tests/gpu/test_point_environment.cpp covers one GPU)
  }
  REQUIRE(nccl.status == 0);
  const json points = read_json_file(workers_dir / "run.json").at("points");
  REQUIRE(points.size() == 2);
  const char* protocols[] = {"LL", "Simple"};
  for (std::size_t i = 0; i < 2; ++i) {
    const json& environment = points[i].at("environment");
    CHECK(environment.at("NCCL_PROTO") == protocols[i]);
    CHECK(environment.at("NCCL_ALGO") == "Ring");
    CHECK(environment.at("OMPI_COMM_WORLD_RANK") == "0");  // rank 0's view
    CHECK(points[i].at("unexpected_environment").empty());
  }
}

TEST_CASE("buffer footprints: rotated calls stay inside their allocation, and each footprint is recorded") {
  // Under AddressSanitizer a rotated call past the end of its host buffer would fail the run.
  const auto dir = scratch_dir("footprints");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all", "--sizes", "64K,1M",
                                          "--buffer-footprint", "exact,4M", "--warmup", "1", "--iters", "40", "-o",
                                          dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json doc = read_json_file(dir / "run.json");
  CHECK(doc.at("records").size() == 2 * 2 * (7 + 5));
  for (const json& r : doc.at("records")) {
    CHECK(r.at("wrong") == 0);
    const auto size = r.at("size_bytes").get<std::uint64_t>();
    if (r.at("buffer_footprint") == "exact") {
      CHECK(r.at("footprint_bytes") == size);
      CHECK(r.at("footprint_offsets") == 1);
    } else {
      CHECK(r.at("footprint_bytes") == (4u << 20));
      CHECK(r.at("footprint_offsets") == (4u << 20) / size);
    }
  }
  CHECK_THAT(run.output, ContainsSubstring("[footprint exact]"));
}

TEST_CASE("a flushed cache is recorded and times single calls") {
  const auto dir = scratch_dir("cache-flush");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "64K",
                                          "--cache", "flush", "--warmup", "0", "--iters", "2", "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json doc = read_json_file(dir / "run.json");
  REQUIRE(doc.at("records").size() == 2);
  for (const json& r : doc.at("records")) {
    CHECK(r.at("cache") == "flush");
    CHECK(r.at("calls_per_sample") == 1);
    CHECK(r.at("buffer_footprint") == "largest");
  }
}
