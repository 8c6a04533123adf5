// locate's whole schedule (locate/phase_runner.hpp) and verdicts on ranks that are threads
// (thread_ranks.hpp) with an engine whose slow-down scales its time exactly
// (paced_engine.hpp): which host, link or GPU pair the slow-down aid marks is judged on
// exact figures, so no test needs repeated runs to hold. Real timing end to end stays in
// tests/integration/test_locate_launch.cpp (one slowed rank, and --reference).
#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catch_compat.hpp"
#include "core/units.hpp"
#include "locate/host_layout.hpp"
#include "locate/locate_fault.hpp"
#include "locate/locate_results.hpp"
#include "locate/locate_text.hpp"
#include "locate/phase_runner.hpp"
#include "locate/verdicts.hpp"
#include "in_process_launch.hpp"
#include "paced_engine.hpp"
#include "read_file.hpp"
#include "runtime/locate_launch.hpp"
#include "thread_ranks.hpp"
#include "transport/rank_refusal.hpp"

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

// How a paced run is measured: exact times by default; `jitter` scatters each call's
// time (paced_engine.hpp), every rank's engine seeded from `seed`.
struct PacedRun {
  int iters = 2;
  int repeats = 2;
  double threshold = 0.9;  // the GPU default: exact figures need no wider band
  double jitter = 0;
  unsigned seed = 1;
  Bytes bytes = 256 * kKiB;  // the one size measured
};

// locate on those ranks with the given fault ("" for none); rank 0's verdicts.
Verdicts located(const std::vector<std::string>& hosts, const std::string& fault_text, const std::string& phases,
                 std::vector<StepTime>* steps = nullptr, const PacedRun& paced = {},
                 std::vector<MeasurementRecord>* records = nullptr, std::string* slow_notes = nullptr) {
  LocateOptions options;
  set_phases(options, phases);
  options.sizes = {paced.bytes};
  options.warmup = 1;
  options.iters = paced.iters;
  options.repeats = paced.repeats;
  options.threshold = paced.threshold;
  const SlowFault fault = fault_text.empty() ? SlowFault{} : parse_slow_fault(fault_text);
  const HostLayout layout = layout_from_hosts(hosts);
  std::mutex mutex;
  LocateRun on_rank0;
  run_ranks(hosts, [&](ThreadRank& rank) {
    PacedEngine engine;
    engine.set_jitter(paced.jitter, paced.seed * 1000 + static_cast<unsigned>(rank.rank()));
    engine.connect({});
    std::string notes;
    LocateRun run = run_locate(
        engine, rank, layout, options, fault, [](const StepTime&, std::span<const MeasurementRecord>, int, int) {},
        [&](const Step& step, const std::vector<SlowWarmUp>& slow, int index, int total) {
          notes += slow_warm_up_text(layout, step, slow, index, total);
        });
    if (rank.rank() == 0) {
      if (slow_notes) *slow_notes = notes;
      const std::lock_guard lock(mutex);
      on_rank0 = std::move(run);
    }
    return 0;
  });
  if (steps) *steps = on_rank0.steps;
  if (records) *records = on_rank0.measurements;
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

TEST_CASE("in-process locate times a link a hundred times slower in one call a repeat, and still names it") {
  const auto hosts = host_names(4, 2);
  std::vector<MeasurementRecord> records;
  PacedRun paced;
  paced.iters = 8;
  paced.bytes = kMiB << 10;  // 0.1 s a call at the paced engine's 10 GB/s, 10 s on the slow link
  std::string notes;
  const Verdicts v = located(hosts, "link=h0,h3:slow=100", "host,pairs", nullptr, paced, &records, &notes);
  // Said when the warm-up shows it, before the step ends: one line, naming the pair and each test.
  CHECK(std::count(notes.begin(), notes.end(), '\n') == 1);
  CHECK_THAT(notes, Catch::Matchers::StartsWith("# step 2/4: pairs round 1: h0,h3 far slower than the typical group in warm-up ("));
  CHECK_THAT(notes, ContainsSubstring("all_gather 1 GiB: "));
  CHECK_THAT(notes, ContainsSubstring("sendrecv 1 GiB: "));
  CHECK_THAT(notes, ContainsSubstring(" a call against "));
  CHECK_THAT(notes, ContainsSubstring(", 1 timed call(s) a repeat"));
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::link);
  CHECK(v.findings[0].hosts == std::vector<int>{0, 3});
  int slow = 0, full = 0;
  for (const MeasurementRecord& r : records) {
    REQUIRE(r.locate);
    const bool slow_pair = r.locate->hosts == std::vector<int>{0, 3};
    CHECK(r.iters == (slow_pair ? 1 : 8));
    (slow_pair ? slow : full) += 1;
  }
  CHECK(slow == 2 * 2);  // all_gather and sendrecv, 2 repeats
  CHECK(full > slow);
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

bool names(const std::vector<Finding>& list, FindingKind kind, const std::vector<int>& hosts) {
  return std::any_of(list.begin(), list.end(), [&](const Finding& f) { return f.kind == kind && f.hosts == hosts; });
}

}  // namespace

TEST_CASE("in-process locate with noisy figures names a slowed host, and only it") {
  // Each call scattered by 20%; 20 calls a repeat, 3 repeats: the slowed host reads 0.1x.
  const PacedRun noisy{.iters = 20, .repeats = 3, .threshold = 0.5, .jitter = 0.2, .seed = 7};
  const Verdicts v = located(host_names(6, 2), "5:slow=10", "host,pairs", nullptr, noisy);
  REQUIRE(v.findings.size() == 1);
  CHECK(v.findings[0].kind == FindingKind::host);
  CHECK(v.findings[0].hosts == std::vector<int>{2});
  CHECK(v.unresolved.empty());
}

TEST_CASE("in-process locate with noisy figures names a slowed link as that link: its two hosts, never three or four") {
  for (const unsigned seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    const PacedRun noisy{.iters = 20, .repeats = 3, .threshold = 0.5, .jitter = 0.2, .seed = seed};
    const Verdicts v = located(host_names(4, 2), "link=h1,h2:slow=10", "host,pairs", nullptr, noisy);
    REQUIRE(v.findings.size() == 1);
    CHECK(v.findings[0].kind == FindingKind::link);
    CHECK(v.findings[0].hosts == std::vector<int>{1, 2});
    CHECK(v.unresolved.empty());
  }
}

TEST_CASE("in-process locate on a clean fabric with noisy figures names nothing, three runs in a row") {
  for (const unsigned seed : {11u, 12u, 13u}) {
    INFO("seed " << seed);
    const PacedRun noisy{.iters = 20, .repeats = 3, .threshold = 0.5, .jitter = 0.3, .seed = seed};
    const Verdicts v = located(host_names(4, 2), "", "host,pairs", nullptr, noisy);
    CHECK(v.all_clear());
    for (const Resolution& r : v.resolution) CHECK(r.resolves(0.5));
  }
}

TEST_CASE("a run too short to resolve its threshold names no host, says so, and the length it names resolves it") {
  const auto hosts = host_names(4, 2);
  // Two calls a repeat, each scattered by 30%: the figures scatter by about 20%.
  PacedRun brief{.iters = 2, .repeats = 3, .threshold = 0.9, .jitter = 0.3, .seed = 5};
  const Verdicts short_run = located(hosts, "", "host,pairs", nullptr, brief);
  CHECK(short_run.findings.empty());  // nothing named slow on a clean fabric
  const std::vector<std::string> notes = resolution_notes(short_run, brief.iters);
  REQUIRE_FALSE(notes.empty());
  CHECK_THAT(notes.front(), ContainsSubstring("this run tells a"));
  CHECK_THAT(notes.front(), ContainsSubstring("--threshold 0.90 needs about"));
  std::ostringstream table;
  print_findings_table(table, layout_from_hosts(hosts), short_run, false, brief.iters);
  CHECK_THAT(table.str(), ContainsSubstring("# resolution: "));
  if (short_run.unresolved.empty()) CHECK_THAT(table.str(), ContainsSubstring("nothing below the threshold; see the resolution"));
  // As long as the notes say: every phase then tells 0.9 from noise, and still names nothing.
  double longest = 1;
  for (const Resolution& r : short_run.resolution) longest = std::max(longest, r.longer_for(brief.threshold));
  REQUIRE(std::isfinite(longest));
  brief.iters = static_cast<int>(std::ceil(brief.iters * longest));
  const Verdicts long_run = located(hosts, "", "host,pairs", nullptr, brief);
  for (const Resolution& r : long_run.resolution) {
    INFO(name_of(r.phase) << " " << name_of(r.subject) << " noise " << r.noise << " widths " << r.widths);
    CHECK(r.resolves(0.9));
  }
  CHECK(long_run.all_clear());
  CHECK(resolution_notes(long_run, brief.iters).empty());
}

TEST_CASE("a link below the threshold in every repeat but within noise is unresolved, never nothing slow") {
  const auto hosts = host_names(4, 2);
  // Half speed on h0-h3 in figures that scatter by about 30%: below 0.7, within noise.
  const PacedRun rough{.iters = 1, .repeats = 3, .threshold = 0.7, .jitter = 0.35, .seed = 3};
  const Verdicts v = located(hosts, "link=h0,h3:slow=2", "host,pairs", nullptr, rough);
  REQUIRE(v.matrix[0][3] < 0.7);  // the premise: the link's cell is below the threshold
  CHECK(names(v.unresolved, FindingKind::link, {0, 3}));
  CHECK(v.findings.empty());
  std::ostringstream table;
  print_findings_table(table, layout_from_hosts(hosts), v, false, rough.iters);
  CHECK_THAT(table.str(), ContainsSubstring("unresolved link"));
  CHECK_THAT(table.str(), !ContainsSubstring("nothing slow"));
  // 25 times slower under figures scattered four times as wide: named, at the least unresolved.
  const PacedRun rougher{.iters = 1, .repeats = 3, .threshold = 0.6, .jitter = 1.0, .seed = 3};
  const Verdicts worse = located(hosts, "link=h0,h3:slow=25", "host,pairs", nullptr, rougher);
  CHECK((names(worse.unresolved, FindingKind::link, {0, 3}) || names(worse.findings, FindingKind::link, {0, 3})));
  for (const Finding& f : worse.findings) CHECK(f.kind != FindingKind::host);
}

namespace {

// The whole locate launch (runtime/locate_launch.hpp) on thread ranks; each rank's status,
// and each rank's error in `errors` when given. `jitter` and `seed` as PacedRun's.
std::vector<int> locate_launch(const std::vector<std::string>& hosts, const LocateRequest& request, double jitter = 0,
                               unsigned seed = 1, std::vector<std::string>* errors = nullptr) {
  std::mutex mutex;
  if (errors) errors->assign(hosts.size(), "");
  return run_ranks(hosts, [&](ThreadRank& rank) {
    const LaunchServices services{
        .make_engine =
            [&](EngineKind) {
              auto engine = std::make_unique<PacedEngine>();
              engine->set_jitter(jitter, seed * 1000 + static_cast<unsigned>(rank.rank()));
              return std::unique_ptr<Engine>(std::move(engine));
            },
        .received_signal = [] { return 0; },
        .workers = {},
    };
    LocateOutcome outcome = run_locate_launch(rank, request, services);
    if (errors) {
      const std::lock_guard<std::mutex> lock(mutex);
      (*errors)[static_cast<std::size_t>(rank.rank())] = std::move(outcome.error);
    }
    return outcome.status;
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

TEST_CASE("a refusal of any rank stops every rank; rank 0 alone has the words, its own or the lowest refusing rank's") {
  std::mutex mutex;
  std::vector<std::optional<std::string>> seen(3);
  const std::vector<std::string> hosts = host_names(3, 1);
  const auto refusals = [&](const std::function<std::string(int rank)>& message) {
    run_ranks(hosts, [&](ThreadRank& rank) {
      const std::optional<std::string> r = refusal_of_any_rank(rank, message(rank.rank()));
      const std::lock_guard<std::mutex> lock(mutex);
      seen[static_cast<std::size_t>(rank.rank())] = r;
      return 0;
    });
    return seen;
  };
  CHECK(refusals([](int) { return std::string(); }) == std::vector<std::optional<std::string>>(3));
  CHECK(refusals([](int r) { return r == 0 ? std::string("bad --sizes") : std::string(); }) ==
        std::vector<std::optional<std::string>>{"bad --sizes", "", ""});
  // Only other ranks refused: rank 0 quotes the lowest of them, naming its rank and host.
  CHECK(refusals([](int r) { return r > 0 ? "no GPU on rank " + std::to_string(r) : std::string(); }) ==
        std::vector<std::optional<std::string>>{"rank 1 (host " + hosts[1] + "): no GPU on rank 1", "", ""});
}

TEST_CASE("an in-process locate launch refuses a fault aimed at a rank it lacks, on every rank, before measuring") {
  const auto dir = fresh_dir("locate-missing-rank");
  std::vector<std::string> errors;
  CHECK(all_equal(locate_launch(host_names(2, 2), paced_locate(dir, "9:slow=10"), 0, 1, &errors), kExitUsage));
  REQUIRE(errors.size() == 4);
  CHECK_THAT(errors[0], ContainsSubstring("names rank 9, which this launch does not have"));
  // Only rank 0 holds the words: its command prints them once.
  CHECK(std::all_of(errors.begin() + 1, errors.end(), [](const std::string& e) { return e.empty(); }));
  CHECK(!std::filesystem::exists(dir / "run.json"));
  CHECK(!std::filesystem::exists(dir / "records.jsonl"));  // a refused launch leaves -o DIR usable
  CHECK(all_equal(locate_launch(host_names(2, 2), paced_locate(dir, "link=h0,h7:slow=10")), kExitUsage));
}

TEST_CASE("an in-process locate launch into a directory that holds a run is refused before measuring, the run kept") {
  const auto dir = fresh_dir("locate-twice");
  CHECK(all_equal(locate_launch(host_names(2, 2), paced_locate(dir, "")), kExitOk));
  const std::string records = read_file(dir / "records.jsonl");
  const std::string run = read_file(dir / "run.json");
  // Every measurement is in records.jsonl, as the launch read it back for its verdicts.
  CHECK(read_locate_results(dir).measurements.size() == static_cast<std::size_t>(std::count(records.begin(), records.end(), '\n')));
  CHECK_FALSE(records.empty());
  CHECK(all_equal(locate_launch(host_names(2, 2), paced_locate(dir, "")), kExitUsage));
  CHECK(read_file(dir / "records.jsonl") == records);
  CHECK(read_file(dir / "run.json") == run);
}

TEST_CASE("an in-process locate launch exits 1 on every rank when a link is below the threshold within noise") {
  // The noisy link of "a link below the threshold in every repeat but within noise ...":
  // nothing slow, so no host or link to drain, but no all-clear either.
  const auto dir = fresh_dir("locate-unresolved");
  LocateRequest request = paced_locate(dir, "link=h0,h3:slow=2");
  request.options.iters = 1;
  request.options.repeats = 3;
  request.options.threshold = 0.7;
  CHECK(all_equal(locate_launch(host_names(4, 2), request, 0.35, 3), kExitFindings));
  const nlohmann::json verdicts = nlohmann::json::parse(read_file(dir / "run.json")).at("verdicts");
  CHECK(verdicts.at("findings").empty());
  CHECK(verdicts.at("slow") == false);
  CHECK(verdicts.at("clear") == false);
  const nlohmann::json& unresolved = verdicts.at("unresolved");
  CHECK(std::any_of(unresolved.begin(), unresolved.end(), [](const nlohmann::json& f) {
    return f.at("kind") == "link" && f.at("hosts") == nlohmann::json{"h0", "h3"};
  }));
}
