// The shipped sweep files, sweeps/schema.json and docs/sweep-files.md agree with the parser.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "catch_compat.hpp"
#include "plan/sweep_plan.hpp"
#include "spec/sweep.hpp"

using namespace ncclsweep;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = NCCLSWEEP_SOURCE_DIR;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("schema.json's top-level properties are exactly the keys the parser knows") {
  const auto schema = nlohmann::json::parse(read_text(kSource / "sweeps/schema.json"));
  std::set<std::string> in_schema;
  for (const auto& [key, value] : schema.at("properties").items()) {
    in_schema.insert(key);
    INFO(key);
    CHECK(value.contains("description"));
  }
  const std::set<std::string> in_parser(sweep_file_keys().begin(), sweep_file_keys().end());
  CHECK(in_schema == in_parser);
  CHECK(schema.at("additionalProperties") == false);
}

TEST_CASE("docs/sweep-files.md documents every key") {
  const std::string docs = read_text(kSource / "docs/sweep-files.md");
  for (const auto& key : sweep_file_keys()) {
    INFO(key);
    CHECK(docs.find("### `" + key + "`") != std::string::npos);
  }
}

TEST_CASE("every example sweep file loads and plans") {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    INFO(entry.path().string());
    const std::string text = read_text(entry.path());
    CHECK(text.rfind("#", 0) == 0);  // each starts with a comment saying what it is for
    const Sweep sweep = load_sweep_file(entry.path().string());
    const SweepPlan plan = plan_sweep(sweep, {});
    CHECK(!plan.points.empty());
  }
  CHECK(files >= 6);
}

TEST_CASE("the example sweeps group as their comments say") {
  const auto plan_of = [](const char* name) { return plan_sweep(load_sweep_file((kSource / "sweeps" / name).string()), {}); };
  const auto qps = plan_of("qps.yaml");
  CHECK(qps.points.size() == 8);
  CHECK(qps.isolation_groups.size() == 8);  // both variables are process-cached
  const auto algo = plan_of("algo-proto.yaml");
  CHECK(algo.points.size() == 9);
  CHECK(algo.isolation_groups.size() == 3);  // NCCL_MAX_NCHANNELS splits; NCCL_PROTO re-inits
  CHECK(algo.points[algo.baseline].label == "NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=32");
  const auto settings = plan_of("proto-algo-channels.yaml");
  CHECK(settings.points.size() == 18);
  CHECK(settings.isolation_groups.size() == 3);  // NCCL_MIN_NCHANNELS splits; PROTO and ALGO re-init
  const auto ctas = plan_of("ctas.yaml");
  CHECK(ctas.points.size() == 2);
  CHECK(ctas.isolation_groups.size() == 1);
  CHECK(plan_of("smoke-mpi.yaml").measurements.engine == EngineKind::mpi);
}
