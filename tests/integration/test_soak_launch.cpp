// ncclsweep soak end to end on the mpi engine: 4 fake hosts x 2 ranks under one MPMD
// mpirun, windows of one second: the slow-down aid from a time on (a drift on exactly
// that host; with one rank a host, traced through pairs of hosts), none (no verdict),
// and SIGTERM then --resume (one timeline). The metrics
// file is parsed with prometheus_client at every window. A flap, and the same verdicts on
// exact figures, are judged in-process in tests/unit/test_soak_in_process.cpp.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "catch_compat.hpp"
#include "integration/launch.hpp"
#include "integration/processes.hpp"
#include "read_file.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// 8 ranks on the test machine's two cores: a window is a second of rounds of a 64 KiB
// all_reduce on the world and on each host. Timing there moves by tens of percent and
// in spells that slow every rank, so the band is +-60% (--noise-rel 0.6, the GPU default
// is 0.04); a host's series is judged against the other hosts in the same window, which
// a spell moves alike. The drift aid slows 10-fold: the slowed rank takes CPU from every
// rank on the two cores, so at 5-fold its host moved only 2x against its peers in 1 of 5
// quiet runs (bench/soak-false-alarms), too little for four windows to leave the band.
// The world's series has no peers to be judged against, so a spell is an outlier window
// there: at a 0.25 threshold a clean timeline once named one at 0.19x (2026-12-04, the
// test alone on 2 cores). Outliers are judged on exact figures in tests/unit/test_soak.cpp; here the
// threshold is 0.1, past what a spell has been seen to do.
std::vector<std::string> soak_args(const std::filesystem::path& dir, const std::string& duration,
                                   const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"soak",     "--engine",  "mpi",  "--collectives", "all_reduce", "--sizes",
                                "64K",      "--window",  "1s",   "--duration",    duration,     "--warmup",
                                "3",        "--iters",   "4",    "--noise-rel",   "0.6",        "--threshold",
                                "0.1",      "-o",        dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<AppContext> four_hosts(const std::vector<std::string>& args) {
  std::vector<AppContext> apps;
  for (int h = 0; h < 4; ++h) apps.push_back({2, {"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)}, args});
  return apps;
}

std::vector<json> windows_of(const std::filesystem::path& dir) {
  std::vector<json> windows;
  std::ifstream in(dir / "records.jsonl");
  for (std::string line; std::getline(in, line);) windows.push_back(json::parse(line));
  return windows;
}

std::set<std::string> hosts_with(const json& findings, const std::string& kind) {
  std::set<std::string> hosts;
  for (const json& f : findings) {
    if (f.at("kind") == kind) hosts.insert(f.at("host").get<std::string>());
  }
  return hosts;
}

// The python3 that has prometheus_client (a pyenv shim on PATH may lack the distro's).
std::string prometheus_python() {
  for (const char* python : {"python3", "/usr/bin/python3"}) {
    if (run_process({python, "-c", "import prometheus_client.parser"}).status == 0) return python;
  }
  return "";
}

// Parses each file with prometheus_client; prints "ok N" with the families of the last.
Launch parse_metrics(const std::vector<std::filesystem::path>& files) {
  std::vector<std::string> argv{prometheus_python(), "-c",
                                "import sys\n"
                                "from prometheus_client.parser import text_string_to_metric_families as parse\n"
                                "names = []\n"
                                "for path in sys.argv[1:]:\n"
                                "    names = sorted(f.name for f in parse(open(path).read()))\n"
                                "print('ok', len(sys.argv) - 1, ' '.join(names))\n"};
  for (const auto& f : files) argv.push_back(f.string());
  return run_process(argv);
}

}  // namespace

TEST_CASE("soak: a rank slowed from t=4 s drifts exactly its host, from that window; metrics parse at every window",
          "[soak]") {
  const auto dir = scratch_dir("soak-drift");
  const auto metrics = dir.parent_path() / "soak-drift.prom";
  const auto log = dir.parent_path() / "soak-drift.log";
  const pid_t mpirun = start_process(
      mpirun_argv(four_hosts(soak_args(dir, "10s", {"--inject-fault", "5:slow=10@t=4", "--metrics-file", metrics.string()}))),
      log);
  REQUIRE(mpirun > 0);
  // Every version of the metrics file the soak writes (one per window), as it goes.
  std::vector<std::filesystem::path> versions;
  std::string last;
  int status = -1;
  for (const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
       std::chrono::steady_clock::now() < give_up;) {
    if (std::filesystem::exists(metrics)) {
      const std::string text = read_file(metrics);
      if (text != last) {
        last = text;
        versions.push_back(dir.parent_path() / ("soak-drift-" + std::to_string(versions.size()) + ".prom"));
        std::ofstream(versions.back()) << text;
      }
    }
    int raw = 0;
    if (waitpid(mpirun, &raw, WNOHANG) == mpirun) {
      status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string output = read_file(log);
  INFO(output);
  CHECK(status == 1);
  const json findings = findings_of(dir);
  INFO(findings.dump(2));
  CHECK(hosts_with(findings, "drift").count("h2") == 1);
  std::set<std::string> drifting_hosts = hosts_with(findings, "drift");
  drifting_hosts.erase("world");  // the world follows its slowest host
  CHECK(drifting_hosts == std::set<std::string>{"h2"});
  const std::vector<json> windows = windows_of(dir);
  REQUIRE(windows.size() >= 6);
  // The first window the aid slowed, from the records themselves.
  int slowed = -1;
  for (const json& w : windows) {
    if (slowed < 0 && w.at("testing_aid_slow_factors").at(5).get<double>() > 1) slowed = w.at("window").get<int>();
  }
  REQUIRE(slowed > 0);
  for (const json& f : findings) {
    if (f.at("kind") == "drift" && f.at("host") == "h2") {
      CHECK(std::abs(f.at("first_window").get<int>() - slowed) <= 1);
      CHECK(f.at("step").get<double>() < -0.5);
    }
  }
  for (std::size_t i = 0; i < windows.size(); ++i) CHECK(windows[i].at("window") == static_cast<int>(i));

  if (prometheus_python().empty()) {
    WARN("python3 prometheus_client missing: the metrics files were not parsed (apt install python3-prometheus-client)");
    return;
  }
  CHECK(versions.size() + 2 >= windows.size());  // a window's version may be overwritten before it is seen
  const Launch parsed = parse_metrics(versions);
  INFO(parsed.output);
  CHECK(parsed.status == 0);
  CHECK_THAT(parsed.output, ContainsSubstring("ok " + std::to_string(versions.size())));
  CHECK_THAT(parsed.output, ContainsSubstring("ncclsweep_busbw_gbps"));
  CHECK_THAT(parsed.output, ContainsSubstring("ncclsweep_soak_verdict"));
  CHECK_THAT(last, ContainsSubstring("ncclsweep_soak_verdict{host=\"h2\",kind=\"drift\"} 1"));
  CHECK_THAT(last, ContainsSubstring("ncclsweep_soak_verdict{host=\"h0\",kind=\"drift\"} 0"));

  // report turns the directory into the same format, and into a timeline.
  const Launch prom = run_ncclsweep({"report", dir.string(), "--format", "prom", "-o", (dir.parent_path() / "report.prom").string()});
  REQUIRE(prom.status == 0);
  const Launch reparsed = parse_metrics({dir.parent_path() / "report.prom"});
  CHECK(reparsed.status == 0);
  const Launch svg = run_ncclsweep({"report", dir.string(), "--format", "svg"});
  REQUIRE(svg.status == 0);
  CHECK_THAT(svg.output, ContainsSubstring("<svg"));
  CHECK_THAT(svg.output, ContainsSubstring("drift: "));
}

TEST_CASE("soak: 4 hosts x 1 rank, one rank slowed from t=4 s: the world's drift is traced to its host", "[soak]") {
  // No host has a split of its own: only the world's series moves, and the pair tests of
  // the windows after its drift name the host.
  const auto dir = scratch_dir("soak-trace");
  std::vector<AppContext> apps;
  const std::vector<std::string> args = soak_args(dir, "14s", {"--inject-fault", "2:slow=10@t=4"});
  for (int h = 0; h < 4; ++h) apps.push_back({1, {"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)}, args});
  const Launch run = mpirun_mpmd(apps);
  INFO(run.output);
  CHECK(run.status == 1);
  const json findings = findings_of(dir);
  INFO(findings.dump(2));
  std::set<std::string> drifting = hosts_with(findings, "drift");
  CHECK(drifting.count("world") == 1);
  drifting.erase("world");
  CHECK(drifting == std::set<std::string>{"h2"});
  int slowed = -1;
  for (const json& w : windows_of(dir)) {
    if (slowed < 0 && w.at("testing_aid_slow_factors").at(2).get<double>() > 1) slowed = w.at("window").get<int>();
  }
  REQUIRE(slowed > 0);
  for (const json& f : findings) {
    if (f.at("kind") == "drift" && f.at("host") == "h2") CHECK(std::abs(f.at("first_window").get<int>() - slowed) <= 1);
  }
}

TEST_CASE("soak: a clean soak finds nothing", "[soak][leaks]") {
  const auto dir = scratch_dir("soak-clean");
  const Launch run = mpirun_mpmd(four_hosts(soak_args(dir, "8s")));
  INFO(run.output);
  CHECK(findings_of(dir).empty());
  CHECK(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("nothing found"));
}

// Judges the timeline, not its figures: it runs beside other entries ([signals]).
TEST_CASE("soak: SIGTERM to one rank ends after its window; --resume continues one timeline", "[soak][signals]") {
  const auto dir = scratch_dir("soak-resume");
  const auto log = dir.parent_path() / "soak-resume.log";
  const std::vector<std::string> args = soak_args(dir, "8s");
  const pid_t mpirun = start_process(mpirun_argv(four_hosts(args)), log);
  REQUIRE(mpirun > 0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (windows_of(dir).size() < 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::vector<pid_t> ranks = children_of(mpirun);
  REQUIRE(ranks.size() == 8);
  kill(ranks[6], SIGTERM);
  const int status = wait_status(mpirun);
  INFO(read_file(log));
  CHECK(status == 143);
  CHECK_THAT(read_file(log), ContainsSubstring("--resume"));
  const std::vector<json> first = windows_of(dir);
  REQUIRE(!first.empty());
  CHECK(first.back().at("end_s").get<double>() < 7);
  CHECK(read_json_file(dir / "run.json").at("launches").at(0).at("end") == "stopped");

  const Launch resumed = mpirun_mpmd(four_hosts({"soak", "--engine", "mpi", "--resume", dir.string()}));
  INFO(resumed.output);
  // It ends as a soak ends: 0, or 1 with what it found. Eight ranks on two shared cores
  // may run a fresh launch's windows several times slower than its later ones (CI saw
  // 0.14 GB/s, then 0.7), a real step to soak; "a clean soak finds nothing" judges a
  // steady machine, this case the timeline.
  CHECK((resumed.status == 0 || resumed.status == 1));
  if (resumed.status == 1) CHECK_FALSE(findings_of(dir).empty());
  const std::vector<json> all = windows_of(dir);
  REQUIRE(all.size() > first.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i].at("window") == static_cast<int>(i));  // none twice, none missing
    if (i > 0) CHECK(all[i].at("start_s").get<double>() == Approx(all[i - 1].at("end_s").get<double>()));
    CHECK(all[i].at("launch") == (i < first.size() ? 1 : 2));
  }
  CHECK(all.back().at("end_s").get<double>() >= 8);
  const json run = read_json_file(dir / "run.json");
  CHECK(run.at("launches").size() == 2);
  CHECK(run.at("launches").at(1).at("end") == "duration");

  // A --duration given with --resume lengthens the finished timeline (only it: the other
  // options stay the first launch's).
  const Launch longer = mpirun_mpmd(four_hosts({"soak", "--engine", "mpi", "--resume", dir.string(), "--duration", "10s"}));
  INFO(longer.output);
  CHECK((longer.status == 0 || longer.status == 1));
  const std::vector<json> extended = windows_of(dir);
  REQUIRE(extended.size() > all.size());
  CHECK(extended.back().at("launch") == 3);
  CHECK(extended.back().at("end_s").get<double>() >= 10);
}
