// SIGTERM in the middle of a sweep, then --resume: under real mpirun -np 4 with the
// mpi engine. The signal reaches one rank only (as a launcher may deliver it), so the
// ranks must agree to stop; the resumed run must end with exactly the measurements the
// sweep names, none twice. The runtime's side of it (and what a resume refuses)
// is judged without processes in tests/unit/test_launch_in_process.cpp; here the
// signals travel through mpirun and the flags through the CLI.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "catch_compat.hpp"
#include "integration/launch.hpp"
#include "integration/processes.hpp"
#include "read_file.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// 24 sizes in 2 placements, each measured for 0.1 to 0.15 s (the noise-based stop's time
// bounds, not a count of calls), so the sweep lasts 5-7 s on any machine: the signal lands
// with most of it to come, and a rank ends its measurement well inside the seconds Open MPI
// gives between its SIGTERM and its SIGKILL. A fixed --iters 4 let a 16-core machine finish
// the whole sweep within the 1 s between mpirun's SIGTERM and the ranks'. The entry runs
// beside others with that grace at 2 s (tests/CMakeLists.txt), so the sweep must outlast it.
const std::vector<std::string> kSweep{"run",     "--engine",   "mpi", "--collectives", "all_reduce",
                                      "--sizes", "128K:3M:+128K", "--warmup", "1", "--min-time",
                                      "0.1",     "--max-time", "0.15"};

// Every line of records.jsonl parsed (each must be complete JSON); their keys.
std::vector<std::string> record_keys(const std::filesystem::path& records) {
  std::vector<std::string> keys;
  std::ifstream in(records);
  for (std::string line; std::getline(in, line);) {
    const json r = json::parse(line);
    keys.push_back(r.at("point").get<std::string>() + "|" + r.at("collective").get<std::string>() + "|" +
                   std::to_string(r.at("size_bytes").get<std::uint64_t>()) + "|" + r.at("placement").get<std::string>());
  }
  return keys;
}

std::size_t line_count(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// mpirun -np 4 ncclsweep ARGS in the background (leading its own process group), output to `log`.
pid_t start_mpirun(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<std::string> argv{NCCLSWEEP_MPIEXEC, "-np", "4", "--oversubscribe"};
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  argv.push_back(NCCLSWEEP_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = start_process(argv, log, true);
  REQUIRE(pid >= 0);
  return pid;
}

// Waits (bounded) until `dir` holds a few records: the signal then lands mid-sweep.
void wait_for_records(const std::filesystem::path& dir) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (line_count(dir / "records.jsonl") < 4 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The record keys of kSweep run to its end: each of its sizes, out of place and in place.
std::vector<std::string> sweep_keys() {
  std::vector<std::string> keys;
  for (std::uint64_t size = 128 << 10; size <= (3u << 20); size += 128 << 10) {
    for (const char* placement : {"out_of_place", "in_place"}) {
      keys.push_back("default|all_reduce|" + std::to_string(size) + "|" + placement);
    }
  }
  return keys;
}

// An interrupted run's directory as the docs promise it, then --resume: the records of the
// whole sweep, none twice.
void check_interrupted_then_resume(const std::filesystem::path& dir, const std::vector<std::string>& expected) {
  const json stopped = json::parse(read_file(dir / "run.json"));
  CHECK(stopped.at("status") == "interrupted");
  const std::vector<std::string> first = record_keys(dir / "records.jsonl");
  CHECK(first.size() < expected.size());
  CHECK(stopped.at("records").size() == first.size());

  const Launch resumed = mpirun_ncclsweep(4, with(kSweep, {"--resume", dir.string()}));
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  const json done = json::parse(read_file(dir / "run.json"));
  CHECK(done.at("status") == "complete");
  const std::vector<std::string> all = record_keys(dir / "records.jsonl");
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == all.size());  // none twice
  CHECK(std::set<std::string>(all.begin(), all.end()) == std::set<std::string>(expected.begin(), expected.end()));
  CHECK(done.at("records").size() == all.size());
}

}  // namespace

TEST_CASE("SIGTERM to one rank stops every rank after its measurement; --resume completes the sweep", "[leaks]") {
  const std::vector<std::string> expected = sweep_keys();
  REQUIRE(expected.size() == 24 * 2);
  const auto dir = scratch_dir("resume-interrupted");
  const auto log = dir.parent_path() / "resume-interrupted.log";
  const pid_t mpirun = start_mpirun(with(kSweep, {"-o", dir.string()}), log);
  wait_for_records(dir);
  const std::vector<pid_t> ranks = children_of(mpirun);
  REQUIRE(ranks.size() == 4);
  kill(ranks[2], SIGTERM);
  const int status = wait_status(mpirun);
  const std::string output = read_file(log);
  INFO(output);
  CHECK(status == 143);
  CHECK_THAT(output, ContainsSubstring("--resume"));
  check_interrupted_then_resume(dir, expected);
}

// The way users stop a run: Ctrl-C at the terminal (SIGINT to the foreground process
// group: mpirun and whatever shares its group) and `timeout`/`kill` (SIGTERM to mpirun).
// Open MPI 4 then sends the ranks SIGCONT, SIGTERM after odls_base_sigkill_timeout (1 s)
// and SIGKILL as long after; ncclsweep stops at the SIGTERM. mpirun itself exits 1 however
// the ranks ended (docs/reliability.md), so the ranks' own line says what happened.
TEST_CASE("SIGTERM to mpirun, and Ctrl-C to its process group, leave an interrupted run that --resume completes") {
  const std::vector<std::string> expected = sweep_keys();
  for (const bool ctrl_c : {false, true}) {
    const std::string name = ctrl_c ? "resume-ctrl-c" : "resume-mpirun-sigterm";
    INFO(name);
    const auto dir = scratch_dir(name);
    const auto log = dir.parent_path() / (name + ".log");
    const pid_t mpirun = start_mpirun(with(kSweep, {"-o", dir.string()}), log);
    wait_for_records(dir);
    if (ctrl_c) {
      kill(-mpirun, SIGINT);
    } else {
      kill(mpirun, SIGTERM);
    }
    const int status = wait_status(mpirun);
    const std::string output = read_file(log);
    INFO(output);
    CHECK(status != 0);
    CHECK_THAT(output, ContainsSubstring("stopped by signal") && ContainsSubstring("--resume " + dir.string()));
    check_interrupted_then_resume(dir, expected);
  }
}

TEST_CASE("--resume refuses a directory started by another sweep, unless --force", "[untimed]") {
  const auto dir = scratch_dir("resume-changed");
  const auto args = std::vector<std::string>{"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "4K",
                                             "--iters", "1", "--warmup", "0"};
  REQUIRE(mpirun_ncclsweep(2, with(args, {"-o", dir.string()})).status == 0);
  const std::vector<std::string> changed{"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "8K",
                                         "--iters", "1", "--warmup", "0", "--resume", dir.string()};
  const Launch refused = mpirun_ncclsweep(2, changed);
  INFO(refused.output);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, ContainsSubstring("changed since it was started"));
  CHECK_THAT(refused.output, ContainsSubstring("--force"));

  const Launch forced = mpirun_ncclsweep(2, with(changed, {"--force"}));
  INFO(forced.output);
  CHECK(forced.status == 0);
  CHECK(record_keys(dir / "records.jsonl").size() == 4);  // 4K and 8K, each out-of-place and in-place
}
