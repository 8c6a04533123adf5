// Whole soaks (soak/soak_launch.hpp) on 4 hosts x 2 thread ranks with the paced engine
// (in_process_launch.hpp), windows of a tenth of a second: every window's figures are
// exact (the slow-down aid's factor is fixed at a window's start), so which host drifts
// or flaps, from which window, is judged without the band a loaded CPU needs. Only the
// windows' lengths follow the wall clock. What needs
// processes and real timing (mpirun's signals, the metrics parsed by prometheus_client)
// stays in tests/integration/test_soak_launch.cpp.
#include <atomic>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "in_process_launch.hpp"
#include "paced_engine.hpp"
#include "read_file.hpp"
#include "runtime/stop_signals.hpp"
#include "soak/soak_launch.hpp"
#include "thread_ranks.hpp"

using namespace ncclsweep;
using namespace ncclsweep::soak;
using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

std::vector<std::string> soak_hosts() {
  return {"h0", "h0", "h1", "h1", "h2", "h2", "h3", "h3"};
}

SoakRequest paced_soak(const std::filesystem::path& dir, double duration_s, const std::string& fault = "") {
  SoakOptions options;
  options.window_s = 0.1;
  options.duration_s = duration_s;
  options.collectives = {&collective("all_reduce")};
  options.sizes = {64 * kKiB};
  options.warmup = 1;
  options.iters = 2;
  SoakRequest request;
  request.options = options;
  request.engine = EngineKind::mpi;
  request.fault = fault;
  request.output_dir = dir.string();
  return request;
}

// Each rank's status. stop_rank (>= 0) "receives" SIGTERM once `stop_after_s` have passed.
std::vector<int> soak_in_process(const SoakRequest& request, int stop_rank = -1, double stop_after_s = 0) {
  const auto start = std::chrono::steady_clock::now();
  return run_ranks(soak_hosts(), [&](ThreadRank& rank) {
    const LaunchServices services{
        .make_engine = [](EngineKind) { return std::unique_ptr<Engine>(std::make_unique<PacedEngine>()); },
        .received_signal =
            [&, stopped = rank.rank() == stop_rank] {
              const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
              return stopped && elapsed.count() >= stop_after_s ? SIGTERM : 0;
            },
    };
    return run_soak_launch(rank, request, services);
  });
}

json findings_in(const std::filesystem::path& dir) {
  return json::parse(read_file(dir / "run.json")).at("verdicts").at("findings");
}

std::set<std::string> hosts_named(const json& findings, const std::string& kind) {
  std::set<std::string> hosts;
  for (const json& f : findings) {
    if (f.at("kind") == kind && f.at("host") != "world") hosts.insert(f.at("host").get<std::string>());
  }
  return hosts;
}

}  // namespace

TEST_CASE("an in-process soak: a rank slowed from t=0.5 s drifts exactly its host, from the first slowed window") {
  const auto dir = fresh_dir("soak-drift");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 1.2, "5:slow=10@t=0.5")), kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  CHECK(hosts_named(findings, "drift") == std::set<std::string>{"h2"});
  // The first window that started at 0.5 s or later (a loaded machine stretches windows).
  int slowed = -1;
  for (const json& w : records_of(dir)) {
    if (slowed < 0 && w.at("testing_aid_slow_factors").at(5).get<double>() > 1) slowed = w.at("window").get<int>();
  }
  REQUIRE(slowed > 0);
  for (const json& f : findings) {
    if (f.at("kind") != "drift" || f.at("host") != "h2") continue;
    CHECK(f.at("first_window") == slowed);
    CHECK(f.at("step").get<double>() == Approx(-0.9).margin(0.02));  // a tenth of the level
  }
}

TEST_CASE("an in-process soak: a rank slowed 0.5 s in every second is a flap on its host, not a drift") {
  // Levels of five windows: a loaded machine stretches a window to twice its length, and
  // a level must still span several windows.
  const auto dir = fresh_dir("soak-flap");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 3.0, "3:slow=20@flap=0.5")), kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  CHECK(hosts_named(findings, "flap") == std::set<std::string>{"h1"});
  CHECK(hosts_named(findings, "drift").empty());
}

TEST_CASE("an in-process soak without a fault finds nothing") {
  const auto dir = fresh_dir("soak-clean");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 0.8)), kExitOk));
  CHECK(findings_in(dir).empty());
}

TEST_CASE("an in-process soak stopped on one rank ends after its window; --resume continues one timeline") {
  const auto dir = fresh_dir("soak-resume");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 1.0), /*stop_rank=*/6, /*stop_after_s=*/0.25),
                  exit_status_for_signal(SIGTERM)));
  const std::vector<json> first = records_of(dir);
  REQUIRE(!first.empty());
  CHECK(first.back().at("end_s").get<double>() < 0.9);
  CHECK(json::parse(read_file(dir / "run.json")).at("launches").at(0).at("end") == "stopped");

  SoakRequest resume = paced_soak(dir, 1.0);
  resume.options.reset();  // a resume's options come from run.json
  resume.output_dir.clear();
  resume.resume_dir = dir.string();
  CHECK(all_equal(soak_in_process(resume), kExitOk));
  const std::vector<json> all = records_of(dir);
  REQUIRE(all.size() > first.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i].at("window") == static_cast<int>(i));  // none twice, none missing
    if (i > 0) CHECK(all[i].at("start_s").get<double>() == Approx(all[i - 1].at("end_s").get<double>()));
    CHECK(all[i].at("launch") == (i < first.size() ? 1 : 2));
  }
  CHECK(all.back().at("end_s").get<double>() >= 1.0);
}

TEST_CASE("an in-process soak refuses a fault on a rank the launch lacks, or one that does not slow") {
  CHECK(all_equal(soak_in_process(paced_soak(fresh_dir("soak-rank-9"), 0.3, "9:slow=4")), kExitUsage));
  CHECK(all_equal(soak_in_process(paced_soak(fresh_dir("soak-sleep"), 0.3, "1:sleep=1")), kExitUsage));
}
