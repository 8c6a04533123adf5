// Real fixtures (tests/data/real/, made by scripts/make-fixtures.py on the GPU machine):
// the NCCL-log and torch-trace importers must agree on what the training steps send.
#include <nlohmann/json.hpp>

#include <string>

#include "catch_compat.hpp"
#include "importers/importers.hpp"
#include "test_import_fixtures.hpp"

using namespace ncclsweep;

namespace {

int steps_of(const std::string& job) {
  return nlohmann::json::parse(read_file(kFixtures + "/real/" + job + "/manifest.json")).at("steps_run").get<int>();
}

const CommUse* same_call(const CommProfile& p, const CommUse& u) {
  for (const auto& v : p.uses)
    if (v.collective == u.collective && v.bytes == u.bytes && v.dtype == u.dtype) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("real FSDP2 and DDP fixtures: the log and the trace give the same per-step histogram") {
  for (const std::string job : {"fsdp2", "ddp"}) {
    INFO(job);
    const std::string dir = kFixtures + "/real/" + job;
    const int steps = steps_of(job);
    const CommProfile log = import_nccl_log(dir + "/nccl.*.log", steps);
    const CommProfile trace = import_torch_trace(dir + "/trace.rank0.json.gz", steps);
    REQUIRE(!trace.uses.empty());
    // Everything the traced steps sent is in the log, as often per step.
    for (const CommUse& t : trace.uses) {
      INFO(t.collective << " " << t.bytes << " B " << t.dtype);
      const CommUse* l = same_call(log, t);
      REQUIRE(l != nullptr);
      CHECK(l->calls == Approx(t.calls));
      CHECK(l->group.size == 2);
    }
    // What only the log has ran once per process, outside the steps: model construction
    // and the final barrier. A per-step collective the trace importer missed would fail here.
    int log_only = 0;
    for (const CommUse& l : log.uses) {
      if (same_call(trace, l)) continue;
      INFO("log only: " << l.collective << " " << l.bytes << " B");
      CHECK(l.calls * steps == Approx(1.0));
      ++log_only;
    }
    CHECK(log_only <= 5);
  }
}

TEST_CASE("real FSDP2 fixture: the log importer counts every COLL line of both ranks") {
  const std::string dir = kFixtures + "/real/fsdp2";
  const int steps = steps_of("fsdp2");
  const CommProfile log = import_nccl_log(dir + "/nccl.*.log", steps);
  long all_gather_lines = 0, reduce_scatter_lines = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() != ".log") continue;
    const std::string text = read_file(f.path().string());
    all_gather_lines += occurrences(text, "AllGather: opCount");
    reduce_scatter_lines += occurrences(text, "ReduceScatter: opCount");
  }
  REQUIRE(all_gather_lines > 0);
  // calls are per rank per step: times 2 ranks and the steps gives the lines back.
  CHECK(row_of(log, "all_gather")->calls * 2 * steps == Approx(all_gather_lines));
  CHECK(row_of(log, "reduce_scatter")->calls * 2 * steps == Approx(reduce_scatter_lines));
  CHECK(row_of(log, "reduce_scatter")->op == ncclsweep::ReduceOp::avg);  // FSDP2's fp32 gradient average
}
