// ncclsweep probe end to end on the mpi engine: 2 fake hosts x 1 rank, each rank bound to
// its own core. Faults made outside ncclsweep: a cgroup CPU quota on one host's rank, and
// a busy process pinned to its core; the cpu-hog testing aid where it can work (bound
// ranks) and its refusal where it cannot (unbound); no fault (5 runs); and a probe run
// compared with itself. GPU probes skip with their reason here.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// Two fake hosts, one rank each. `wrap(h)`: what runs the rank of host h, before ncclsweep
// (empty: ncclsweep itself); `bound`: each rank bound to its own core.
Launch probe_on_two_hosts(const std::filesystem::path& dir, const std::vector<std::string>& extra = {}, bool bound = true,
                          const std::function<std::vector<std::string>(int host)>& wrap = {}) {
  std::vector<std::string> args{"probe", "--engine", "mpi", "--quick", "-o", dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<AppContext> apps;
  for (int h = 0; h < 2; ++h) apps.push_back({1, {"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)}, args});
  std::vector<std::string> argv = mpirun_argv(apps);
  // One core each, so a hog of one rank's core shares no core with the other.
  if (bound) {
    argv.insert(argv.begin() + 1, {"--bind-to", "core", "--map-by", "core"});
  } else {
    argv.insert(argv.begin() + 1, {"--bind-to", "none"});
  }
  if (wrap) {
    int host = 0;
    for (auto it = argv.begin(); it != argv.end(); ++it) {
      if (*it != NCCLSWEEP_BINARY) continue;
      const std::vector<std::string> before = wrap(host++);
      it = argv.insert(it, before.begin(), before.end()) + static_cast<std::ptrdiff_t>(before.size());
    }
  }
  return run_process(argv);
}

// A cgroup of the CPU controller made by the test (v1 under /sys/fs/cgroup/cpu, else v2),
// with `percent` of one CPU (0: no limit) and a weight (v2's 1..10000; by default the
// highest), removed with its owner. A high weight keeps what runs in it from losing its
// core to the machine's other work (other builds and tests): the fault is then the quota,
// or the hog, and nothing else. Not usable where this machine lets the test make none
// (not root, no cpu controller).
class CpuCgroup {
 public:
  CpuCgroup(const std::string& name, int percent, int weight = 10000) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path v1 = "/sys/fs/cgroup/cpu", v2 = "/sys/fs/cgroup";
    const bool has_v1 = fs::exists(v1 / "cpu.cfs_quota_us", ec);
    const bool has_v2 = !has_v1 && fs::exists(v2 / "cgroup.controllers", ec);
    if (!has_v1 && !has_v2) return;
    const fs::path dir = (has_v1 ? v1 : v2) / ("ncclsweep-test-" + std::to_string(getpid()) + "-" + name);
    if (!fs::create_directory(dir, ec) || ec) return;
    path_ = dir;
    if (has_v2) {
      std::ofstream(v2 / "cgroup.subtree_control") << "+cpu";
      std::ofstream(dir / "cpu.weight") << weight;
      if (percent > 0) std::ofstream(dir / "cpu.max") << percent * 1000 << " 100000";
      ok_ = fs::exists(dir / "cpu.max", ec);
    } else {
      std::ofstream(dir / "cpu.shares") << weight * 26;  // v1's 2..262144
      std::ofstream(dir / "cpu.cfs_period_us") << 100000;
      if (percent > 0) std::ofstream(dir / "cpu.cfs_quota_us") << percent * 1000;
      ok_ = true;
    }
  }
  ~CpuCgroup() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove(path_, ec);  // empty by then: its processes have ended
  }
  CpuCgroup(const CpuCgroup&) = delete;
  CpuCgroup& operator=(const CpuCgroup&) = delete;
  bool usable() const { return ok_; }
  // Moves process `pid` into it.
  void add(pid_t pid) const { std::ofstream(path_ / "cgroup.procs") << pid; }
  // What puts a process into it and then runs the command after it.
  std::vector<std::string> joined() const {
    return {"/bin/sh", "-c", "echo $$ > '" + (path_ / "cgroup.procs").string() + "' && exec \"$0\" \"$@\""};
  }

 private:
  std::filesystem::path path_;
  bool ok_ = false;
};

// A busy process the test starts itself (not ncclsweep), pinned to one core, in a cgroup
// weighted against the ranks' own (the case says how much the rank keeps). (At nice -20
// in the ranks' own session instead, the kernel's group scheduling gave the whole session
// the weight of one task on every other core, and on a loaded machine the other host's
// rank starved as well.) Killed with its owner.
class PinnedHog {
 public:
  PinnedHog(int cpu, const CpuCgroup& group) {
    child_ = fork();
    if (child_ != 0) {
      if (child_ > 0) group.add(child_);
      return;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    for (unsigned long n = 0;; ++n) asm volatile("" : "+r"(n));  // busy on purpose
  }
  ~PinnedHog() {
    if (child_ <= 0) return;
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
  }
  PinnedHog(const PinnedHog&) = delete;
  PinnedHog& operator=(const PinnedHog&) = delete;

 private:
  pid_t child_ = -1;
};

int online_cpus() { return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)); }

// The checks of the findings that name `host`, e.g. {"probe.busy_effective_ghz"}.
std::vector<std::string> checks_naming(const json& doc, const std::string& host) {
  std::vector<std::string> checks;
  for (const auto& f : doc.at("findings")) {
    if (std::find(f.at("hosts").begin(), f.at("hosts").end(), host) != f.at("hosts").end()) {
      checks.push_back(f.at("check").get<std::string>());
    }
  }
  return checks;
}

bool any_clock_or_stall(const std::vector<std::string>& checks) {
  return std::any_of(checks.begin(), checks.end(), [](const std::string& c) {
    return c.find("effective_ghz") != std::string::npos || c.find("clock_ghz") != std::string::npos ||
           c.find("stall") != std::string::npos;
  });
}

json probe_json(const std::filesystem::path& dir) { return read_json_file(dir / "probe.json"); }

const json* record(const json& doc, const std::string& metric, int rank) {
  for (const auto& r : doc.at("records")) {
    if (r.at("metric") == metric && r.at("rank") == rank) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the cpu-hog aid on a bound rank: its host named, or a note that the aid did not take", "[probe]") {
  // The aid's child shares the ranks' scheduling group, and on a machine loaded by other
  // work the kernel's group scheduling starves the other host's rank with it: then nothing
  // stands out, and the aid must say so. Either way the other host is never named.
  const auto dir = scratch_dir("probe-cpu-hog");
  const Launch run = probe_on_two_hosts(dir, {"--inject-fault", "1:cpu-hog"});
  INFO(run.output);
  const json doc = probe_json(dir);
  CHECK(doc.at("cpu_hog_rank") == 1);
  for (const auto& f : doc.at("findings")) CHECK(f.at("hosts") == json{"h1"});
  if (doc.at("named_hosts").empty()) {
    CHECK(run.status == 0);
    REQUIRE(doc.at("notes").size() == 1);
    CHECK_THAT(doc.at("notes").at(0).get<std::string>(), ContainsSubstring("did not make host h1 stand out"));
    CHECK_THAT(run.output, ContainsSubstring("# note: the testing aid --inject-fault 1:cpu-hog"));
  } else {
    CHECK(run.status == 1);
    CHECK(doc.at("named_hosts") == json{"h1"});
    CHECK(doc.at("notes").empty());
    CHECK(any_clock_or_stall(checks_naming(doc, "h1")));
    CHECK_THAT(run.output, ContainsSubstring("# named: h1"));
  }
  // The records of both ranks are there, in the records file too.
  REQUIRE(record(doc, "busy_effective_ghz", 0));
  REQUIRE(record(doc, "busy_effective_ghz", 1));
  std::ifstream lines(dir / "records.jsonl");
  int count = 0;
  for (std::string line; std::getline(lines, line);) ++count;
  CHECK(count == static_cast<int>(doc.at("records").size()));
}

TEST_CASE("probe names the host whose rank a cgroup holds to a quarter of a CPU, for its clocks or stalls", "[probe]") {
  if (geteuid() != 0) NCCLSWEEP_SKIP("making a cgroup needs root");
  // Each host's rank in a cgroup of its own, so both weigh alike against the machine's
  // other work; only h1's has a quota.
  const CpuCgroup free("free", 0), capped("capped", 25);
  if (!free.usable() || !capped.usable()) NCCLSWEEP_SKIP("no cgroup CPU controller to make a quota with here");
  const auto dir = scratch_dir("probe-cgroup-quota");
  const Launch run = probe_on_two_hosts(dir, {}, true, [&](int host) { return host == 1 ? capped.joined() : free.joined(); });
  INFO(run.output);
  CHECK(run.status == 1);
  const json doc = probe_json(dir);
  CHECK(doc.at("named_hosts") == json{"h1"});
  CHECK(checks_naming(doc, "h0").empty());
  CHECK(any_clock_or_stall(checks_naming(doc, "h1")));
}

TEST_CASE("probe names the host whose core a busy process pinned there takes", "[probe]") {
  if (online_cpus() < 2) NCCLSWEEP_SKIP("one core: the two ranks cannot have cores of their own");
  if (geteuid() != 0) NCCLSWEEP_SKIP("making a cgroup needs root");
  // The ranks in a cgroup of 0.6 of the hog's weight: the kernel spreads a group's weight
  // over the cores its tasks use, two here, so rank 1 keeps about a quarter of its core, as
  // the quota case's (effective clock 0.68-0.71 against 3.13-3.18 GHz). At a tenth of the
  // weight it kept 5% and one probe took up to two minutes.
  const CpuCgroup heavy("hog", 0), ranks("ranks", 0, 6000);
  if (!heavy.usable() || !ranks.usable()) NCCLSWEEP_SKIP("no cgroup CPU controller to weigh the hog with here");
  // --bind-to core --map-by core puts rank 1 (h1) on core 1.
  const PinnedHog hog(1, heavy);
  const auto dir = scratch_dir("probe-pinned-hog");
  const Launch run = probe_on_two_hosts(dir, {}, true, [&](int) { return ranks.joined(); });
  INFO(run.output);
  CHECK(run.status == 1);
  const json doc = probe_json(dir);
  CHECK(doc.at("named_hosts") == json{"h1"});
  CHECK(any_clock_or_stall(checks_naming(doc, "h1")));
}

TEST_CASE("the cpu-hog aid is refused on unbound ranks of one machine, where it would slow both hosts", "[probe][untimed]") {
  const auto dir = scratch_dir("probe-hog-unbound");
  const Launch run = probe_on_two_hosts(dir, {"--inject-fault", "1:cpu-hog"}, false);
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("cannot slow host h1 alone"));
  CHECK_THAT(run.output, ContainsSubstring("--bind-to core"));
  CHECK_FALSE(std::filesystem::exists(dir / "probe.json"));
}

TEST_CASE("without a fault probe names no host, five runs in a row", "[probe]") {
  for (int run_index = 0; run_index < 5; ++run_index) {
    const auto dir = scratch_dir("probe-clean-" + std::to_string(run_index));
    const Launch run = probe_on_two_hosts(dir);
    INFO("run " << run_index << "\n" << run.output);
    CHECK(run.status == 0);
    const json doc = probe_json(dir);
    CHECK(doc.at("named_hosts").empty());
    if (run_index > 0) continue;
    // GPU probes skip with their reason; on a one-node machine the remote NUMA figure too.
    REQUIRE(record(doc, "gemm_bf16_tflops", 0));
    CHECK(record(doc, "gemm_bf16_tflops", 0)->at("skipped") == "the mpi engine measures no GPU");
    const json* remote = record(doc, "numa_remote_copy_gbps", 0);
    REQUIRE(remote);
    if (remote->contains("skipped")) {
      WARN("one NUMA node here: " << remote->at("skipped") << "; the remote-memory case is checked on a faked "
           "two-node topology in tests/unit/test_probe.cpp");
    }
    REQUIRE(record(doc, "memory_on_local_node", 0));
    CHECK(record(doc, "busy_clock_ghz", 0)->at("value").get<double>() > 0.3);
  }
}

TEST_CASE("a probe run compared with itself passes", "[probe][compare][leaks]") {
  const auto dir = scratch_dir("probe-self-compare");
  const Launch run = probe_on_two_hosts(dir);
  INFO(run.output);
  REQUIRE(run.status == 0);
  const Launch compare = run_ncclsweep({"compare", dir.string(), dir.string()});
  INFO(compare.output);
  CHECK(compare.status == 0);
  CHECK_THAT(compare.output, ContainsSubstring("-> PASS"));
  CHECK_THAT(compare.output, ContainsSubstring("busy_clock_ghz"));
  // A probe run against a sweep run is refused, naming the mix-up.
  const Launch mixed = run_ncclsweep({"compare", dir.string(), (std::filesystem::path(NCCLSWEEP_TEST_DATA) / "nccl-tests" / "all_gather-j.json").string()});
  CHECK(mixed.status == 2);
  // Probe figures print only as a table: another format is refused, not ignored.
  const Launch svg = run_ncclsweep({"compare", dir.string(), dir.string(), "--format", "svg"});
  CHECK(svg.status == 2);
  CHECK_THAT(svg.output, ContainsSubstring("prints only as a table"));
}
