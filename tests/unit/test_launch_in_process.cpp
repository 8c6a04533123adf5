// Whole launches (runtime/launch.hpp's run_launch) on ranks that are threads of this
// process (thread_ranks.hpp) with an engine whose times are worked out, not measured
// (paced_engine.hpp): the runtime's collective decisions, judged in milliseconds. What
// needs real processes (mpirun's signals, a rank that dies) stays in
// tests/integration/test_interrupt_resume.cpp and test_fault_exits.cpp.
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "in_process_launch.hpp"
#include "paced_engine.hpp"
#include "read_file.hpp"
#include "measure/fault_injection.hpp"
#include "runtime/stop_signals.hpp"
#include "spec/comm_split.hpp"

using namespace ncclsweep;
using namespace ncclsweep::testing;
using nlohmann::json;

TEST_CASE("an in-process launch on 4 ranks records every planned measurement at the engine's time") {
  const auto dir = fresh_dir("complete");
  const RunSpec spec = paced_spec();
  const InProcessLaunch done = launch_in_process(paced_request(spec, 4, dir), 4);
  INFO(done.errors);
  CHECK(all_equal(done.statuses, kExitOk));
  const json run = json::parse(read_file(dir / "run.json"));
  CHECK(run.at("status") == "complete");
  CHECK(run.at("ranks").size() == 4);
  const std::vector<json> records = records_of(dir);
  REQUIRE(records.size() == 10);
  CHECK(run.at("records").size() == 10);
  PacedEngine paced;
  for (const json& r : records) {
    CollectiveCall call{&collective("all_reduce"), &data_type("float32")};
    call.count = r.at("size_bytes").get<std::uint64_t>() / 4;
    INFO(r.dump());
    CHECK(!r.contains("status"));  // measured and checked: no failure to name
    CHECK(r.at("wrong") == 0);
    CHECK(r.at("time_us").at("avg").get<double>() == Approx(paced.call_seconds(call) * 1e6));
  }
}

TEST_CASE("a signal on one in-process rank stops every rank after its measurement; --resume measures only the rest") {
  const auto dir = fresh_dir("interrupted");
  const RunSpec spec = paced_spec();
  const InProcessLaunch stopped = launch_in_process(paced_request(spec, 4, dir), 4, /*stop_rank=*/2, /*stop_after=*/5);
  INFO(stopped.errors);
  CHECK(all_equal(stopped.statuses, exit_status_for_signal(SIGTERM)));
  CHECK_THAT(stopped.errors, ContainsSubstring("--resume " + dir.string()));
  const json run = json::parse(read_file(dir / "run.json"));
  CHECK(run.at("status") == "interrupted");
  const std::vector<json> first = records_of(dir);
  CHECK(!first.empty());
  CHECK(first.size() < 10);
  CHECK(run.at("records").size() == first.size());

  LaunchRequest resume = paced_resume(spec, 4, dir);
  const InProcessLaunch resumed = launch_in_process(resume, 4);
  INFO(resumed.errors);
  CHECK(all_equal(resumed.statuses, kExitOk));
  const std::vector<json> all = records_of(dir);
  const std::multiset<std::string> keys = keys_of(all);
  CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == keys.size());  // none twice
  CHECK(keys.size() == 10);
  CHECK(json::parse(read_file(dir / "run.json")).at("status") == "complete");
  // Only what was missing was measured again: fewer timed batches than a whole run.
  const InProcessLaunch whole = launch_in_process(paced_request(spec, 4, fresh_dir("interrupted-whole")), 4);
  CHECK(resumed.timed_batches < whole.timed_batches);
  CHECK(resumed.timed_batches * 10 == whole.timed_batches * static_cast<int>(10 - first.size()));
}

TEST_CASE("an in-process --resume refuses another sweep's directory or rank count, unless --force") {
  const auto dir = fresh_dir("changed");
  REQUIRE(all_equal(launch_in_process(paced_request(paced_spec({4 * kKiB}), 2, dir), 2).statuses, kExitOk));
  const std::string records_before = read_file(dir / "records.jsonl");

  LaunchRequest changed = paced_resume(paced_spec({8 * kKiB}), 2, dir);
  const InProcessLaunch refused = launch_in_process(changed, 2);
  INFO(refused.errors);
  CHECK(all_equal(refused.statuses, kExitUsage));
  CHECK_THAT(refused.errors, ContainsSubstring("changed since it was started"));
  CHECK_THAT(refused.errors, ContainsSubstring("--force"));
  CHECK(read_file(dir / "records.jsonl") == records_before);

  LaunchRequest more_ranks = paced_resume(paced_spec({4 * kKiB}), 4, dir);
  CHECK(all_equal(launch_in_process(more_ranks, 4).statuses, kExitUsage));

  changed.force = true;
  const InProcessLaunch forced = launch_in_process(changed, 2);
  INFO(forced.errors);
  CHECK(all_equal(forced.statuses, kExitOk));
  CHECK(keys_of(records_of(dir)).size() == 4);  // 4K and 8K, each out-of-place and in-place
}

TEST_CASE("an in-process --resume refuses records.jsonl holding another sweep's records, before writing") {
  const auto dir = fresh_dir("foreign"), other = fresh_dir("foreign-other");
  REQUIRE(all_equal(launch_in_process(paced_request(paced_spec({4 * kKiB}), 2, dir), 2).statuses, kExitOk));
  REQUIRE(all_equal(launch_in_process(paced_request(paced_spec({8 * kKiB}), 2, other), 2).statuses, kExitOk));
  std::filesystem::copy_file(other / "records.jsonl", dir / "records.jsonl",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string planted = read_file(dir / "records.jsonl");
  LaunchRequest resume = paced_resume(paced_spec({4 * kKiB}), 2, dir);
  const InProcessLaunch refused = launch_in_process(resume, 2);
  INFO(refused.errors);
  CHECK(all_equal(refused.statuses, kExitUsage));
  CHECK_THAT(refused.errors, ContainsSubstring("records.jsonl line 1 is all_reduce 8 KiB"));
  CHECK_THAT(refused.errors, ContainsSubstring("another run's records"));
  CHECK(read_file(dir / "records.jsonl") == planted);
}

TEST_CASE("a slow rank (--inject-fault R:slow=F) slows exactly the communicator that holds it, by F") {
  const auto dir = fresh_dir("slow");
  RunSpec spec = paced_spec({64 * kKiB});
  spec.split = CommSplit{CommunicatorKind::size, 2, 1};  // ranks 0 and 1 in one communicator, 2 and 3 in the other
  LaunchRequest request = paced_request(spec, 4, dir);
  request.fault = parse_fault_injection("1:slow=3");
  const InProcessLaunch slowed = launch_in_process(request, 4);
  INFO(slowed.errors);
  REQUIRE(all_equal(slowed.statuses, kExitOk));
  const std::vector<json> records = records_of(dir);
  REQUIRE(records.size() == 2);
  for (const json& r : records) {
    INFO(r.dump());
    CollectiveCall call{&collective("all_reduce"), &data_type("float32")};
    call.count = r.at("count").get<std::uint64_t>();
    const double normal_us = PacedEngine().call_seconds(call) * 1e6;
    CHECK(r.at("time_us").at("max").get<double>() == Approx(3 * normal_us));
    CHECK(r.at("time_us").at("min").get<double>() == Approx(normal_us));
  }
}
