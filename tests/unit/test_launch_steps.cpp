// The pure decisions a launch makes around its MPI and worker steps: which points a
// failed worker run settles (and which it retries), what the run says when it ends, the
// resume refusal and keys, and the preflight lines.
#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "runtime/launch_document.hpp"
#include "runtime/point_settlement.hpp"
#include "runtime/preflight.hpp"
#include "runtime/resume_state.hpp"
#include "runtime/run_fingerprint.hpp"
#include "spec/config_fields.hpp"

using namespace ncclsweep;

namespace {

std::vector<PointSpec> points(std::initializer_list<const char*> labels) {
  std::vector<PointSpec> out;
  for (const char* label : labels) out.push_back(PointSpec{label, {}, {}, {}});
  return out;
}

PointOutcome reported(const std::string& label, PointStatus status = PointStatus::ok) {
  PointOutcome o;
  o.label = label;
  o.status = status;
  return o;
}

WorkerRunEnd failed_with(const std::string& reason, bool timed_out = false) {
  WorkerRunEnd end;
  end.failed = true;
  end.failure = {reason, timed_out};
  return end;
}

}  // namespace

TEST_CASE("a worker that failed on a point settles the points before it and that one, and retries the rest") {
  const Settlement s =
      settle_points(3, points({"a", "b", "c", "d"}), {reported("a")}, failed_with("rank 1 on n1: bad value"), false);
  CHECK(s.settled == 2);  // a (reported) and b (failed); c and d go to a new worker
  REQUIRE(s.outcomes.size() == 2);
  CHECK(s.outcomes[1].label == "b");
  CHECK(s.outcomes[1].isolation_group == 3);
  CHECK(s.outcomes[1].status == PointStatus::failed);
  CHECK(s.outcomes[1].error == "rank 1 on n1: bad value");
  CHECK(s.failures == std::vector<std::string>{"point b failed: rank 1 on n1: bad value"});
}

TEST_CASE("a worker that timed out marks its point as a timeout") {
  const Settlement s = settle_points(0, points({"a", "b"}), {}, failed_with("timeout: ...", true), false);
  CHECK(s.settled == 1);
  REQUIRE(s.outcomes.size() == 1);
  CHECK(s.outcomes[0].status == PointStatus::timeout);
  CHECK(s.failures == std::vector<std::string>{"point a timeout: timeout: ..."});
}

TEST_CASE("a worker that ended right after reporting a point leaves the next point to a new worker") {
  WorkerRunEnd end = failed_with("rank 0 on n0: worker ended with exit 3");
  end.ended_after_outcome = true;
  const Settlement s = settle_points(0, points({"a", "b", "c"}), {reported("a", PointStatus::failed)}, end, false);
  CHECK(s.settled == 1);
  CHECK(s.outcomes.size() == 1);
  CHECK(s.failures.empty());
  // Nothing reported at all: the first point is the one that failed.
  const Settlement first = settle_points(0, points({"a", "b"}), {}, end, false);
  CHECK(first.settled == 1);
  CHECK(first.outcomes.at(0).status == PointStatus::failed);
}

TEST_CASE("on the last try every point without an outcome is settled; after a stop they are interrupted") {
  const Settlement failed = settle_points(0, points({"a", "b", "c"}), {reported("a")}, failed_with("why"), true);
  CHECK(failed.settled == 3);
  CHECK(failed.outcomes.size() == 3);
  CHECK(failed.failures.size() == 2);
  WorkerRunEnd stopped;
  stopped.stopped = true;
  const Settlement s = settle_points(0, points({"a", "b"}), {reported("a")}, stopped, true);
  CHECK(s.settled == 2);
  CHECK(s.outcomes.at(1).status == PointStatus::interrupted);
  CHECK(s.outcomes.at(1).error == "not run: stopped by a signal");
  CHECK(s.failures.empty());
}

TEST_CASE("the run's last words: where the results are, then what raises the exit status") {
  RunDocument run;
  run.records.resize(4);
  const ClosingWords clean = closing_words(run, kExitOk, 0, "results/x");
  CHECK(clean.status == kExitOk);
  CHECK(clean.messages == std::vector<std::pair<LogLevel, std::string>>{{LogLevel::info, "results: results/x"}});

  run.points = {reported("p0", PointStatus::mismatch)};
  run.records[2].wrong = 7;
  const ClosingWords bad = closing_words(run, kExitOk, 15, "results/x");
  CHECK(bad.status == kExitRuntime);
  REQUIRE(bad.messages.size() == 4);
  CHECK(bad.messages[1] == std::pair<LogLevel, std::string>{LogLevel::outcome,
                                                            "stopped by signal 15 after 4 measurement(s); the rest can "
                                                            "be measured with the same command and --resume results/x"});
  CHECK(bad.messages[2].second == "point p0: a setting did not reach NCCL; see run.json points");
  CHECK(bad.messages[3] ==
        std::pair<LogLevel, std::string>{LogLevel::error, "7 output elements held wrong values (see #wrong)"});
  // A stop's own status (130/143) is kept when it is worse.
  CHECK(closing_words(run, 143, 15, "d").status == 143);
}

TEST_CASE("a resume is refused when the fingerprint changed, unless forced") {
  CHECK(resume_refusal("d", "aa", "aa", false).empty());
  CHECK(resume_refusal("d", "aa", "bb", true).empty());
  CHECK_THAT(resume_refusal("d", "aa", "bb", false),
             ContainsSubstring("cannot resume d: the sweep or the rank layout changed since it was started"));
  CHECK_THAT(resume_refusal("d", "aa", "bb", false), ContainsSubstring("(fingerprint aa, now bb)"));
}

TEST_CASE("the resume fingerprint follows what is measured, not the worker message's form") {
  RunSpec spec;
  spec.name = "first";
  spec.collectives = {&collective("all_reduce")};
  spec.sizes = {1 << 20};
  WorkerGroup group;
  group.process_env = {{"NCCL_MIN_NCHANNELS", "8"}};
  PointSpec point;
  point.label = "max_ctas=8";
  point.settings = {{"max_ctas", "8", SettingKind::config_field, SettingStatus::unverified}};
  point.config = {config_setting("max_ctas", "8")};
  group.points = {point};
  const std::vector<std::string> hosts{"a", "a"};
  const std::string fingerprint = run_fingerprint(spec, {group}, hosts);
  // What the worker is sent besides the settings follows from them: not fingerprinted.
  WorkerGroup resent = group;
  resent.points[0].config.clear();
  resent.points[0].env = {{"NCCL_ALGO", "Ring"}};
  CHECK(run_fingerprint(spec, {resent}, hosts) == fingerprint);
  RunSpec renamed = spec;
  renamed.name = "second";
  CHECK(run_fingerprint(renamed, {group}, hosts) == fingerprint);
  // A setting's value, the group's variables, the sizes or the hosts are what is measured.
  WorkerGroup other_value = group;
  other_value.points[0].settings[0].value = "16";
  CHECK(run_fingerprint(spec, {other_value}, hosts) != fingerprint);
  WorkerGroup other_env = group;
  other_env.process_env["NCCL_MIN_NCHANNELS"] = "4";
  CHECK(run_fingerprint(spec, {other_env}, hosts) != fingerprint);
  RunSpec other_sizes = spec;
  other_sizes.sizes = {1 << 21};
  CHECK(run_fingerprint(other_sizes, {group}, hosts) != fingerprint);
  CHECK(run_fingerprint(spec, {group}, {"a", "b"}) != fingerprint);
}

TEST_CASE("a refused resume says what changed, not only two fingerprints") {
  RunDocument earlier;
  earlier.ranks.resize(4);
  for (auto& r : earlier.ranks) r.host = "a";
  earlier.settings = {EngineKind::mpi, 5, 400, true};
  const auto changes = resume_changes(earlier, RunSettings{EngineKind::mpi, 5, 401, true}, {"a", "a"});
  REQUIRE(changes.size() == 2);
  CHECK(changes[0] == "ranks 4 -> 2");
  CHECK(changes[1] == "iters 400 -> 401");
  CHECK_THAT(resume_refusal("d", "aa", "bb", false, changes), ContainsSubstring("started: ranks 4 -> 2, iters 400 -> 401"));
  CHECK(resume_changes(earlier, RunSettings{EngineKind::mpi, 5, 400, true}, {"a", "a", "a", "a"}).empty());
}

TEST_CASE("the resumed keys survive the trip through one text, each field of them") {
  RecordedMeasurements recorded;
  CHECK(done_keys_text(recorded).empty());
  CHECK(parse_done_keys("").empty());
  MeasurementRecord a;
  a.collective = &collective("reduce_scatter");
  a.dtype = &data_type("bfloat16");
  a.op = ReduceOp::max;
  a.size_bytes = a.requested_bytes = 4 << 20;
  a.ranks = 2;
  a.point = "NCCL_PROTO=LL";
  // Each record differs from `a` in one field of the key: all must stay apart.
  std::vector<MeasurementRecord> records{a};
  const auto vary = [&](auto change) {
    MeasurementRecord r = a;
    change(r);
    records.push_back(r);
  };
  vary([](MeasurementRecord& r) { r.repeat = 1; });
  vary([](MeasurementRecord& r) { r.placement = Placement::in_place; });
  vary([](MeasurementRecord& r) { r.op = ReduceOp::min; });
  vary([](MeasurementRecord& r) { r.requested_bytes = 5 << 20; });
  vary([](MeasurementRecord& r) { r.buffers = BufferMode::nccl_register; });
  vary([](MeasurementRecord& r) { r.buffer_footprint = parse_footprint("exact"); });
  vary([](MeasurementRecord& r) { r.cache = CacheState::flush; });
  vary([](MeasurementRecord& r) { r.communicator = CommunicatorKind::dp; });
  vary([](MeasurementRecord& r) {
    r.under_compute = UnderCompute{};
    r.under_compute->load = parse_compute_load("gemm:256x256x256:bf16");
  });
  records.push_back(a);  // the same measurement twice is one key
  recorded.records = records;
  const std::set<MeasurementKey> keys = parse_done_keys(done_keys_text(recorded));
  CHECK(keys.size() == records.size() - 1);
  CHECK(keys == measurement_keys(records));
}

TEST_CASE("preflight shows warnings and errors one line each and counts the informational findings") {
  doctor::Finding warning;
  warning.severity = doctor::Severity::warning;
  warning.check = "placement.shared_cores";
  warning.ranks = {0, 1, 2, 3};
  warning.evidence = "ranks 0 and 1 share cores 0-1";
  doctor::Finding info;
  info.severity = doctor::Severity::info;
  CHECK(preflight_lines({info, warning, info}) ==
        std::vector<std::string>{
            "preflight: warning placement.shared_cores ranks 0-3: ranks 0 and 1 share cores 0-1",
            "preflight: 2 informational finding(s) in run.json; ncclsweep doctor explains each"});
}
