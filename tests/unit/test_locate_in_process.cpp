// locate's whole schedule (locate/phase_runner.hpp) and verdicts on ranks that are threads
// (thread_ranks.hpp) with an engine whose slow-down scales its time exactly
// (paced_engine.hpp): which host, link or GPU pair the slow-down aid marks is judged on
// exact figures, so no test needs repeated runs to hold. Real timing end to end stays in
// tests/integration/test_locate_launch.cpp (one slowed rank, and --reference).
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catch_compat.hpp"
#include "core/units.hpp"
#include "locate/host_layout.hpp"
#include "locate/locate_fault.hpp"
#include "locate/locate_results.hpp"
#include "locate/phase_runner.hpp"
#include "locate/verdicts.hpp"
#include "in_process_launch.hpp"
#include "paced_engine.hpp"
#include "read_file.hpp"
#include "runtime/locate_launch.hpp"
#include "thread_ranks.hpp"

using namespace ncclsweep;
using namespace ncclsweep::locate;
using namespace ncclsweep::testing;

namespace {

// `per_host` ranks on each of `hosts` hosts h0, h1, ...
std::vector<std::string> host_names(int hosts, int per_host) {
  std::vector<std::string> names;
  for (int h = 0; h < hosts; ++h) names.insert(names.end(), static_cast<std::size_t>(per_host), "h" + std::to_string(h));
  return names;
}

// locate on those ranks with the given fault ("" for none); rank 0's verdicts.
Verdicts located(const std::vector<std::string>& hosts, const std::string& fault_text, const std::string& phases,
                 std::vector<StepTime>* steps = nullptr) {
  LocateOptions options;
  set_phases(options, phases);
  options.sizes = {256 * kKiB};
  options.warmup = 1;
  options.iters = 2;
  options.repeats = 2;
  options.threshold = 0.9;  // the GPU default: exact figures need no wider band
  const SlowFault fault = fault_text.empty() ? SlowFault{} : parse_slow_fault(fault_text);
  const HostLayout layout = layout_from_hosts(hosts);
  std::mutex mutex;
  LocateRun on_rank0;
  run_ranks(hosts, [&](ThreadRank& rank) {
    PacedEngine engine;
    engine.connect({});
    LocateRun run = run_locate(engine, rank, layout, options, fault, [](const StepTime&, int, int) {});
    if (rank.rank() == 0) {
      const std::lock_guard lock(mutex);
      on_rank0 = std::move(run);
    }
    return 0;
  });
  if (steps) *steps = on_rank0.steps;
  return judge(layout, on_rank0.measurements, options.threshold);
}

std::string findings_table(const std::vector<std::string>& hosts, const Verdicts& verdicts) {
  std::ostringstream out;
  print_findings_table(out, layout_from_hosts(hosts), verdicts, false);
  return out.str();
}

}  // namespace

TEST_CASE("in-process locate names exactly the host of a slowed rank") {
  const auto hosts = host_names(4, 2);
  std::vector<StepTime> steps;
  const Verdicts v = located(hosts, "5:slow=10", "host,pairs", &steps);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::host);
  CHECK(v.findings[0].hosts == std::vector<int>{2});
  CHECK(v.findings[0].ranks == std::vector<int>{4, 5});
  CHECK_THAT(findings_table(hosts, v), ContainsSubstring("host  4-5"));
  int pair_rounds = 0;
  for (const StepTime& s : steps) pair_rounds += s.phase == LocatePhase::pairs ? 1 : 0;
  CHECK(pair_rounds == 3);  // the round robin of 4 hosts
}

TEST_CASE("in-process locate names exactly a slowed link as a link, and neither of its hosts") {
  const auto hosts = host_names(4, 2);
  const Verdicts v = located(hosts, "link=h0,h3:slow=10", "host,pairs");
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::link);
  CHECK(v.findings[0].hosts == std::vector<int>{0, 3});
  CHECK(v.findings[0].ranks == std::vector<int>{0, 1, 6, 7});
}

TEST_CASE("in-process locate names nothing without a fault") {
  for (const int hosts : {2, 3, 4}) {
    INFO(hosts << " hosts");
    const Verdicts v = located(host_names(hosts, 2), "", "host,pairs");
    CHECK(v.findings.empty());
    CHECK(v.matrix.size() == static_cast<std::size_t>(hosts));
  }
}

TEST_CASE("in-process locate names a slowed GPU pair within a host as a gpu-link") {
  const auto hosts = host_names(1, 4);
  const Verdicts v = located(hosts, "ranks=1,2:slow=10", "host");
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::gpu_link);
  CHECK(v.findings[0].local == std::vector<int>{1, 2});
  CHECK(v.findings[0].ranks == std::vector<int>{1, 2});
  CHECK_THAT(findings_table(hosts, v), ContainsSubstring("gpu-link: local 1-2"));
  REQUIRE(v.gpu_matrix.size() == 1);
  CHECK(v.gpu_matrix[0][1][2] == Approx(0.1).epsilon(0.05));
  // The GPU x GPU map of the host: 4 x 4 cells below the 1 x 1 host map.
  std::ostringstream svg;
  print_heat_map_svg(svg, layout_from_hosts(hosts), v, 0.9);
  const std::string text = svg.str();
  std::size_t cells = 0;
  for (std::size_t at = text.find("<rect"); at != std::string::npos; at = text.find("<rect", at + 1)) ++cells;
  CHECK(cells == 1 + 16);
  CHECK_THAT(text, ContainsSubstring("local 1 x local 2: 0.1"));
}

namespace {

// The whole locate launch (runtime/locate_launch.hpp) on thread ranks; each rank's status.
std::vector<int> locate_launch(const std::vector<std::string>& hosts, const LocateRequest& request) {
  return run_ranks(hosts, [&](ThreadRank& rank) {
    const LaunchServices services{
        .make_engine = [](EngineKind) { return std::unique_ptr<Engine>(std::make_unique<PacedEngine>()); },
        .received_signal = [] { return 0; },
    };
    return run_locate_launch(rank, request, services);
  });
}

LocateRequest paced_locate(const std::filesystem::path& dir, const std::string& fault) {
  LocateRequest request;
  set_phases(request.options, "host,pairs");
  request.options.sizes = {256 * kKiB};
  request.options.warmup = 1;
  request.options.iters = 2;
  request.options.repeats = 2;
  request.engine = EngineKind::mpi;
  request.fault = fault;
  request.output_dir = dir.string();
  return request;
}

}  // namespace

TEST_CASE("an in-process locate launch writes its findings and every rank exits 1 when a host is slow") {
  const auto dir = fresh_dir("locate-launch");
  const std::vector<int> statuses = locate_launch(host_names(4, 2), paced_locate(dir, "5:slow=10"));
  CHECK(all_equal(statuses, kExitFindings));
  const nlohmann::json run = nlohmann::json::parse(read_file(dir / "run.json"));
  const nlohmann::json& findings = run.at("verdicts").at("findings");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].at("kind") == "host");
  CHECK(findings[0].at("hosts") == nlohmann::json{"h2"});
  CHECK(run.at("rank_hosts").size() == 8);
}

TEST_CASE("an in-process locate launch refuses a fault aimed at a rank it lacks, on every rank, before measuring") {
  const auto dir = fresh_dir("locate-missing-rank");
  CHECK(all_equal(locate_launch(host_names(2, 2), paced_locate(dir, "9:slow=10")), kExitUsage));
  CHECK(!std::filesystem::exists(dir / "run.json"));
  CHECK(all_equal(locate_launch(host_names(2, 2), paced_locate(dir, "link=h0,h7:slow=10")), kExitUsage));
}
