#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "results/record_json.hpp"
#include "results/results_directory.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
namespace fs = std::filesystem;

namespace {

RunDocument sample_run() {
  RunDocument run;
  run.name = "smoke";
  run.status = RunStatus::complete;
  run.command_line = {"ncclsweep", "run", "--sizes", "1M"};
  run.start_time = "2026-11-29T18:00:00Z";
  run.end_time = "2026-11-29T18:00:05Z";
  run.versions = {"0.1.0", "abc123", "13.0", "13.0", "2.28.9", "2.28.3", "Open MPI v4.1.4"};
  run.settings = {EngineKind::nccl, 5, 20, true};
  run.hosts = {"node1"};
  run.ranks = {RankEntry{0, "node1", 0, 0, "NVIDIA H200", "0000:00:06.0", {{"NCCL_PROTO", "Simple"}}}};
  run.notes = {"rounded"};
  run.preflight = {{"env.file", doctor::Severity::error, {0, 1}, {"node1"}, "NCCL_TOPO_FILE=/x: gone", "mount it"}};
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.dtype = &data_type("float32");
  r.op = std::nullopt;
  r.size_bytes = 1 << 20;
  r.requested_bytes = 1 << 20;
  r.count = 131072;
  r.placement = Placement::in_place;
  r.ranks = 2;
  r.warmup = 5;
  r.iters = 20;
  r.time_us = {12.0, 13.0, 14.0};
  r.algbw_gbps = 74.9;
  r.busbw_gbps = 37.45;
  r.wrong = 0;
  run.records = {r, r};
  run.records[1].wrong.reset();
  return run;
}

fs::path fresh_dir(const char* name) {
  const fs::path dir = ncclsweep::testing::scratch_root() / "results" / name;
  fs::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("run.json round-trips every field") {
  const RunDocument run = sample_run();
  const nlohmann::json j = run;
  const RunDocument back = j.get<RunDocument>();
  CHECK(nlohmann::json(back) == j);
  CHECK(back.records[0].wrong == std::optional<std::uint64_t>(0));
  CHECK_FALSE(back.records[1].wrong.has_value());
  CHECK(back.ranks[0].environment.at("NCCL_PROTO") == "Simple");
  CHECK(j.at("records")[1].at("wrong").is_null());
  REQUIRE(back.preflight.size() == 1);
  CHECK(back.preflight[0].ranks == std::vector<int>{0, 1});
  CHECK(j.at("preflight")[0].at("severity") == "error");
}

TEST_CASE("run.json from before preflight existed still loads") {
  nlohmann::json j = sample_run();
  j.erase("preflight");
  CHECK(j.get<RunDocument>().preflight.empty());
}

TEST_CASE("a document from a newer schema is refused") {
  nlohmann::json j = sample_run();
  j["schema_version"] = kResultsSchemaVersion + 1;
  CHECK_THROWS_WITH(j.get<RunDocument>(), ContainsSubstring("newer than this ncclsweep reads"));
}

TEST_CASE("the results directory keeps records as they come and run.json at the end") {
  const fs::path dir = fresh_dir("writer");
  const RunDocument run = sample_run();
  {
    auto sink = make_results_directory(dir);
    RunDocument started = run;
    started.status = RunStatus::incomplete;
    started.records.clear();
    sink->begin(started);
    CHECK(read_run_document(dir).status == RunStatus::incomplete);
    sink->row(run.records);
    std::ifstream lines(dir / "records.jsonl");
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) ++count;
    CHECK(count == 2);  // on disk before the run finishes
    sink->finish(run);
  }
  const RunDocument back = read_run_document(dir);
  CHECK(back.status == RunStatus::complete);
  CHECK(back.records.size() == 2);
  CHECK_THROWS_WITH(make_results_directory(dir), ContainsSubstring("already holds a run"));
}

TEST_CASE("reading bad results gives a usage error") {
  const fs::path dir = fresh_dir("bad");
  fs::create_directories(dir);
  CHECK_THROWS_WITH(read_run_document(dir), ContainsSubstring("cannot read"));
  std::ofstream(dir / "run.json") << "{not json";
  CHECK_THROWS_WITH(read_run_document(dir), ContainsSubstring("not valid JSON"));
  std::ofstream(dir / "run.json", std::ios::trunc) << R"({"schema_version": 1})";
  CHECK_THROWS_WITH(read_run_document(dir), ContainsSubstring("not an ncclsweep run.json"));
}

TEST_CASE("a point's settings: every kind and status survive run.json by one name each; older names still read") {
  for (const SettingKind kind : {SettingKind::config_field, SettingKind::env_reread, SettingKind::env_process_cached}) {
    for (const SettingStatus status : {SettingStatus::unverified, SettingStatus::applied, SettingStatus::not_read,
                                       SettingStatus::mismatch, SettingStatus::by_config}) {
      const SettingOutcome s{"NCCL_PROTO", "LL", kind, status};
      const nlohmann::json j = s;
      CHECK(j.at("kind") == std::string(name_of(kind)));
      CHECK(j.at("status") == std::string(name_of(status)));
      const auto back = j.get<SettingOutcome>();
      CHECK(back.kind == kind);
      CHECK(back.status == status);
    }
  }
  // The plan's names are run.json's names.
  CHECK(name_of(SettingKind::config_field) == "config_field");
  CHECK(name_of(SettingKind::env_process_cached) == "env_process_cached");
  // run.json before the names were one, and a worker's request without a status.
  const auto old = nlohmann::json::parse(R"({"name": "max_ctas", "value": "8", "kind": "config", "status": "by-config"})")
                       .get<SettingOutcome>();
  CHECK(old.kind == SettingKind::config_field);
  CHECK(nlohmann::json::parse(R"({"name": "A", "value": "1", "kind": "env_process", "status": ""})").get<SettingOutcome>().kind ==
        SettingKind::env_process_cached);
  CHECK_THROWS_AS(nlohmann::json::parse(R"({"name": "A", "value": "1", "kind": "envv", "status": ""})").get<SettingOutcome>(),
                  UsageError);
}
