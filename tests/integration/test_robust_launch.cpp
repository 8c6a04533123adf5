// Attacks on a run that need real processes (docs/reliability.md, "Hostile inputs" and
// "Signals"): two writers of one results directory, a killed writer's lock, a directory
// removed mid-run, a preloaded library that calls setenv() before main, ranks that plan
// different runs, and SIGTERM to mpirun while a long measurement runs on a loaded machine.
// Each under real mpirun with the mpi engine.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
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

// A few quick sizes (records on disk within seconds), then one that takes seconds to
// measure: a second writer, a kill or a removal lands while the run still writes.
const std::vector<std::string> kLongRun{"run",     "--engine", "mpi",    "--collectives", "all_reduce",
                                        "--sizes", "1K,2K,32M", "--iters", "40",          "--warmup", "1"};

std::vector<std::string> robust_record_keys(const std::filesystem::path& records) {
  std::vector<std::string> keys;
  std::ifstream in(records);
  for (std::string line; std::getline(in, line);) {
    const json r = json::parse(line);
    keys.push_back(r.at("collective").get<std::string>() + "|" + std::to_string(r.at("size_bytes").get<std::uint64_t>()) +
                   "|" + r.at("placement").get<std::string>());
  }
  return keys;
}

std::size_t robust_line_count(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

pid_t start_mpirun_ranks(int ranks, const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<std::string> argv{NCCLSWEEP_MPIEXEC, "-np", std::to_string(ranks), "--oversubscribe"};
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  argv.push_back(NCCLSWEEP_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = start_process(argv, log, true);
  REQUIRE(pid >= 0);
  return pid;
}

// Whether this machine's mpirun passes SIGUSR1 on to its ranks: a one-rank shell that
// records the signal. Not every Open MPI build forwards it.
bool mpirun_passes_sigusr1(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto ready = dir / "usr1-ready", seen = dir / "usr1-seen";
  const std::string script = "trap 'touch " + seen.string() + "; exit 0' USR1; touch " + ready.string() +
                             "; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done";
  std::vector<std::string> argv{NCCLSWEEP_MPIEXEC, "-np", "1", "--oversubscribe"};
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  argv.insert(argv.end(), {"sh", "-c", script});
  const pid_t pid = start_process(argv, dir / "usr1-probe.log", true);
  REQUIRE(pid >= 0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(ready) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGUSR1);
  wait_status(pid);
  return std::filesystem::exists(seen);
}

// Waits (bounded) until records.jsonl holds `lines` lines.
void wait_for_lines(const std::filesystem::path& dir, std::size_t lines) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (robust_line_count(dir / "records.jsonl") < lines && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(robust_line_count(dir / "records.jsonl") >= lines);
}

// Busy processes that load every core while they live.
class CpuLoad {
 public:
  explicit CpuLoad(int processes) {
    const auto log = scratch_dir("cpu-load") / "load.log";
    for (int i = 0; i < processes; ++i) hogs_.push_back(start_process({"sh", "-c", "while :; do :; done"}, log));
  }
  ~CpuLoad() {
    for (const pid_t pid : hogs_) {
      kill(pid, SIGKILL);
      wait_status(pid);
    }
  }

 private:
  std::vector<pid_t> hogs_;
};

}  // namespace

TEST_CASE("a second writer of a results directory is refused naming the first; a killed writer's lock is taken over") {
  const auto dir = scratch_dir("lock-held");
  const auto log = dir.parent_path() / "lock-held.log";
  const pid_t first = start_mpirun_ranks(2, with(kLongRun, {"-o", dir.string()}), log);
  wait_for_lines(dir, 2);
  const std::vector<pid_t> ranks = children_of(first);
  REQUIRE(ranks.size() == 2);
  // Frozen, its ranks cannot finish (and release the lock) while the second launches
  // run: a fast machine measures the remaining sizes in a few seconds.
  for (const pid_t rank : ranks) kill(rank, SIGSTOP);

  // While it writes: a --resume of its directory and a new run into it are refused.
  for (const auto& how : {std::vector<std::string>{"--resume", dir.string()}, std::vector<std::string>{"-o", dir.string()}}) {
    const Launch second = mpirun_ncclsweep(2, with(kLongRun, how));
    INFO(second.output);
    CHECK(second.status == 2);
    CHECK_THAT(second.output, ContainsSubstring("being written by another ncclsweep"));
    CHECK_THAT(second.output, ContainsSubstring("pid "));
    CHECK_THAT(second.output, ContainsSubstring("--sizes 1K,2K,32M"));  // the holder's command
  }

  // Killed outright: its lock stays behind, held by nobody.
  kill(-first, SIGKILL);
  for (const pid_t rank : ranks) kill(rank, SIGKILL);
  wait_status(first);
  REQUIRE(std::filesystem::exists(dir / "ncclsweep.lock"));
  const Launch resumed = mpirun_ncclsweep(2, with(kLongRun, {"--resume", dir.string()}));
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.output, ContainsSubstring("took over the lock"));
  CHECK_FALSE(std::filesystem::exists(dir / "ncclsweep.lock"));  // released at the end
  const std::vector<std::string> keys = robust_record_keys(dir / "records.jsonl");
  CHECK(keys.size() == 6);  // 3 sizes x 2 placements
  CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == keys.size());  // none twice
}

TEST_CASE("a results directory removed mid-run stops the run, and no message claims records are there") {
  const auto dir = scratch_dir("removed-mid-run");
  const auto log = dir.parent_path() / "removed-mid-run.log";
  const pid_t mpirun = start_mpirun_ranks(2, with(kLongRun, {"-o", dir.string()}), log);
  wait_for_lines(dir, 2);
  std::filesystem::remove_all(dir);
  const int status = wait_status(mpirun);
  const std::string output = read_file(log);
  INFO(output);
  CHECK(status == 3);
  CHECK_THAT(output, ContainsSubstring("was removed or moved during the run"));
  CHECK_THAT(output, !ContainsSubstring("every record measured is in"));
  CHECK_FALSE(std::filesystem::exists(dir / "records.jsonl"));
}

TEST_CASE("a library preloaded into the ranks that calls setenv() before main changes nothing") {
  const auto dir = scratch_dir("preloaded");
  const char* asan = std::getenv("ASAN_OPTIONS");
  // ASan wants to be the first library loaded; a preloaded one comes before it.
  const std::string asan_options = std::string(asan ? asan : "") + (asan && *asan ? ":" : "") + "verify_asan_link_order=0";
  const Launch run = mpirun_mpmd({{2,
                                   {std::string("LD_PRELOAD=") + NCCLSWEEP_PRELOAD_SETENV, "ASAN_OPTIONS=" + asan_options},
                                   {"run", "--engine", "mpi", "-c", "all_reduce", "-s", "1K", "--iters", "2", "--warmup",
                                    "1", "-o", dir.string()}}});
  INFO(run.output);
  REQUIRE(run.status == 0);
  // The variable the library set before main is in the environment every rank recorded.
  const json document = read_json_file(dir / "run.json");
  REQUIRE(document.at("ranks").size() == 2);
  for (const json& rank : document.at("ranks")) {
    CHECK(rank.at("environment").value("NCCL_NCCLSWEEP_TEST_PRELOADED", "") == "set-before-main");
  }
}

TEST_CASE("ranks that planned different runs stop together, naming the rank and the difference") {
  // The sweep names its sizes' log by a relative path, and the two ranks run in two
  // directories holding different logs: the mistake of a job started from two places.
  const auto base = scratch_dir("plans-differ");
  const std::string log = read_file(std::filesystem::path(NCCLSWEEP_TEST_DATA) / "nccl_log" / "nccl.gpu-node-01.4100.log");
  std::filesystem::create_directories(base / "a");
  std::filesystem::create_directories(base / "b");
  std::ofstream(base / "a" / "nccl.log") << log;
  std::ofstream(base / "b" / "nccl.log") << log.substr(0, log.find("ReduceScatter"));  // fewer kinds of call
  std::ofstream(base / "sweep.yaml") << "collectives: [all_gather, reduce_scatter, all_reduce]\n"
                                        "sizes: {from_nccl_log: nccl.log}\n";
  // --op sum: the log's reduce-scatters average, which the mpi engine cannot.
  const std::vector<std::string> args{"run", (base / "sweep.yaml").string(), "--engine", "mpi", "--op", "sum", "--iters", "1",
                                      "--warmup", "0", "-o", (base / "out").string()};
  const Launch run = mpirun_mpmd({{1, {}, args, (base / "a").string()}, {1, {}, args, (base / "b").string()}});
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("the ranks planned different runs"));
  CHECK_THAT(run.output, ContainsSubstring("rank 1 ("));
  CHECK_THAT(run.output, ContainsSubstring("rank 0 has"));
  CHECK_THAT(run.output, ContainsSubstring("absolute path"));
  CHECK_FALSE(std::filesystem::exists(base / "out" / "records.jsonl"));  // nothing was measured
}

// mpirun, signalled, sends its ranks SIGTERM and a second later SIGKILL (Open MPI 4's
// odls_base_sigkill_timeout). A measurement that takes longer than that on a loaded
// machine is killed mid-way: rank 0 has marked its files interrupted at the SIGTERM.
TEST_CASE("SIGTERM to mpirun during a long measurement on a loaded machine leaves run.json interrupted, with a summary") {
  const auto dir = scratch_dir("sigterm-loaded");
  const auto log = dir.parent_path() / "sigterm-loaded.log";
  std::vector<std::string> expected;
  {
    const CpuLoad load(4);
    const pid_t mpirun = start_mpirun_ranks(4, with(kLongRun, {"-o", dir.string()}), log);
    wait_for_lines(dir, 4);  // 1K and 2K done: 32M is being measured, for several seconds
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(mpirun, SIGTERM);
    const int status = wait_status(mpirun);
    const std::string output = read_file(log);
    INFO(output);
    CHECK(status != 0);
    const json stopped = read_json_file(dir / "run.json");
    CHECK(stopped.at("status") == "interrupted");
    CHECK(stopped.at("end_time").get<std::string>() != "");
    CHECK(stopped.at("records").size() == robust_line_count(dir / "records.jsonl"));
    CHECK(std::filesystem::exists(dir / "summary.md"));
  }
  const Launch resumed = mpirun_ncclsweep(4, with(kLongRun, {"--resume", dir.string()}));
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  const std::vector<std::string> keys = robust_record_keys(dir / "records.jsonl");
  CHECK(keys.size() == 6);
  CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == keys.size());
  CHECK(read_json_file(dir / "run.json").at("status") == "complete");
}

// SIGUSR1 is the signal mpirun passes on at once: every rank ends its measurement, the
// run stops as at a SIGTERM to the ranks themselves, and mpirun exits with their status.
TEST_CASE("SIGUSR1 to mpirun stops every rank after its measurement, with the ranks' own status") {
  const auto dir = scratch_dir("sigusr1");
  if (!mpirun_passes_sigusr1(dir.parent_path() / "sigusr1-probe")) {
    NCCLSWEEP_SKIP("this machine's mpirun does not pass SIGUSR1 on to its ranks (a one-rank shell never saw it): "
                   "stop runs there with SIGTERM to the ranks (scancel, srun)");
  }
  const auto log = dir.parent_path() / "sigusr1.log";
  const std::vector<std::string> args{"run",     "--engine",     "mpi",     "--collectives", "all_reduce", "--sizes",
                                      "1K,2K,16M,32M", "--iters", "40",   "--warmup",      "1", "-o", dir.string()};
  const pid_t mpirun = start_mpirun_ranks(2, args, log);
  wait_for_lines(dir, 4);
  kill(mpirun, SIGUSR1);
  const int status = wait_status(mpirun);
  const std::string output = read_file(log);
  INFO(output);
  CHECK(status == 128 + SIGUSR1);
  CHECK_THAT(output, ContainsSubstring("stopped by signal 10") && ContainsSubstring("--resume " + dir.string()));
  const json stopped = read_json_file(dir / "run.json");
  CHECK(stopped.at("status") == "interrupted");
  CHECK(stopped.at("records").size() == robust_line_count(dir / "records.jsonl"));
  CHECK(robust_line_count(dir / "records.jsonl") < 8);  // 32M was not measured
}
