// ncclsweep diagnose end to end on the mpi engine: against a reference run of this
// machine, with the slow-down aid making the calls 85% and 100% of it, a CPU hog and an NCCL variable on one fake host each, and
// a slowed rank among four fake hosts. Which layer takes which share is judged on exact
// evidence in tests/unit/test_diagnosis.cpp; here real launches must name the same layer
// and host.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// The calls both sides measure: all_reduce at 3 sizes, 100 timed iterations each. Shorter
// measurements on shared cores (20 iterations, a few milliseconds) read a launch's first
// moments, when its processes still compete with their own start, up to twice as slow.
const std::vector<std::string> kCalls{"-c", "all_reduce", "--sizes", "32K:128K:x2", "--warmup", "10", "--iters", "100"};

// A reference run on `apps`' layout, each timed call of rank 1 repeated `slowdown` times,
// five repeats interleaved: their median leaves a slow first repeat out.
std::filesystem::path reference_run(const std::filesystem::path& dir, const std::vector<AppContext>& layout,
                                    int slowdown, const std::string& name = "reference") {
  const auto out = dir / name;
  std::vector<std::string> args = with({"run", "--engine", "mpi"}, kCalls);
  args = with(args, {"--repeats", "5", "--order", "interleaved", "-q", "-o", out.string()});
  if (slowdown > 1) args = with(args, {"--inject-fault", "1:slow=" + std::to_string(slowdown)});
  std::vector<AppContext> apps = layout;
  for (auto& app : apps) app.args = args;
  const Launch run = mpirun_mpmd(apps);
  INFO(run.output);
  REQUIRE(run.status == 0);
  return out;
}

struct Diagnosed {
  Launch launch;
  json doc;  // what stdout printed (--format json), checked against the directory's copy
};

Diagnosed diagnose(const std::filesystem::path& out, const std::filesystem::path& reference, std::vector<AppContext> apps,
                   const std::vector<std::string>& extra, const std::vector<std::string>& mpirun_options = {}) {
  std::vector<std::string> args = with({"diagnose", "--engine", "mpi", "--reference", reference.string()}, kCalls);
  args = with(args, {"--budget", "3m", "--format", "json", "-o", out.string()});
  args = with(args, extra);
  for (auto& app : apps) app.args = args;
  std::vector<std::string> argv = mpirun_argv(apps);
  argv.insert(argv.begin() + 1, mpirun_options.begin(), mpirun_options.end());
  Diagnosed d{run_process(argv, Capture::stdout_apart), {}};
  INFO(d.launch.output);
  // stdout is the JSON document alone; progress went to stderr.
  REQUIRE(json::accept(d.launch.out));
  d.doc = read_json_file(out / "diagnose.json");
  CHECK(json::parse(d.launch.out) == d.doc);
  CHECK(d.doc.at("exit_status") == d.launch.status);
  return d;
}

const json& layer(const json& doc, const std::string& name) {
  for (const json& l : doc.at("layers")) {
    if (l.at("layer") == name) return l;
  }
  FAIL("no layer " << name);
  return doc;
}

// The reference measured again right now, and whether the machine itself moved since
// the first: the rerun FAILs against it. On shared CPU cores two launches of the same
// calls can read 20% apart, which no launch's own repeats show.
struct Remeasured {
  std::filesystem::path reference;
  bool machine_moved = false;
};
Remeasured remeasure_reference(const std::filesystem::path& dir, const std::vector<AppContext>& layout, int slowdown,
                               const std::filesystem::path& reference, const std::string& name) {
  Remeasured again{reference_run(dir, layout, slowdown, name), false};
  const Launch steady = run_ncclsweep({"compare", again.reference.string(), reference.string(), "--format", "json"});
  INFO(steady.output);
  again.machine_moved = json::parse(steady.output).at("acceptance").at("verdict") == "FAIL";
  return again;
}

std::vector<std::string> causes(const json& doc) {
  std::vector<std::string> out;
  for (const json& l : doc.at("layers")) {
    if (l.at("verdict") == "cause") out.push_back(l.at("layer"));
  }
  return out;
}

std::vector<AppContext> fake_hosts(int hosts, const std::vector<std::string>& first_host_exports = {}) {
  std::vector<AppContext> apps;
  for (int h = 0; h < hosts; ++h) {
    std::vector<std::string> exports{"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)};
    if (h == 0) exports.insert(exports.end(), first_host_exports.begin(), first_host_exports.end());
    apps.push_back({1, exports, {}});
  }
  return apps;
}

}  // namespace

TEST_CASE("diagnose: the gate at 85% of the reference FAILs on the collectives; at 100% it never FAILs") {
  const auto dir = scratch_dir("diagnose-gate");
  const std::vector<AppContext> one_host{{2, {}, {}}};
  // A reference disturbed by other work on the machine certifies nothing (the gate says
  // so: "measure the reference again"); so it is measured again, up to three times.
  std::filesystem::path reference;
  Diagnosed at85;
  for (int attempt = 0; attempt < 3; ++attempt) {
    reference = reference_run(dir, one_host, 45, "reference-" + std::to_string(attempt));
    at85 = diagnose(dir / ("85-" + std::to_string(attempt)), reference, one_host, {"--inject-fault", "1:slow=53"});
    CHECK(at85.doc.at("acceptance").at("verdict") != "PASS");  // never PASS below the target
    if (!at85.doc.at("acceptance").at("reference_too_noisy").get<bool>()) break;
  }
  // Under the sanitizers a process's first second runs up to twice as slow, and on some
  // machines no reference comes out steady enough: the gate says so, and that is all
  // this build can show (the verdicts on exact figures: tests/unit/test_diagnosis.cpp).
  if (at85.doc.at("acceptance").at("reference_too_noisy").get<bool>()) {
    NCCLSWEEP_SKIP("three reference runs were each too noisy for the gate on this build and machine (\"measure the "
                   "reference again\"); an 85% run was never called PASS");
  }
  // An UNRESOLVED gate names the repeats that settle it, nine times in ten were the ratio
  // where it is. 85% (45 calls against 53): at 90% (45 against 50) the median of five read
  // 0.86-0.94 on shared cores, and once in CI a run that read 0.89 (0.82-0.97) and asked for
  // 24 repeats read 0.91 (0.86-0.97) with them, the reference's own spread the most of its
  // interval, and asked for 190: still UNRESOLVED, rightly.
  const json& first = at85.doc.at("acceptance");
  if (first.at("verdict") == "UNRESOLVED" && !first.at("repeats_to_settle").is_null() &&
      first.at("repeats_to_settle").get<int>() <= 60) {
    const std::string repeats = std::to_string(first.at("repeats_to_settle").get<int>());
    at85 = diagnose(dir / "85-settled", reference, one_host, {"--inject-fault", "1:slow=53", "--repeats", repeats});
    CHECK(at85.doc.at("acceptance").at("verdict") != "PASS");
  }
  INFO(at85.launch.output);
  CHECK(at85.launch.status == 1);
  CHECK(at85.doc.at("acceptance").at("verdict") == "FAIL");
  CHECK(causes(at85.doc) == std::vector<std::string>{"collectives"});
  CHECK(layer(at85.doc, "collectives").at("share").get<double>() == Approx(1.0));
  CHECK(layer(at85.doc, "hosts and links").at("verdict") == "unresolved");  // one host: nothing to judge it by
  CHECK(at85.doc.at("time").at("new_ms").get<double>() > at85.doc.at("time").at("reference_ms").get<double>());
  // The budget was announced before the phases, and each phase's time kept.
  CHECK_THAT(at85.launch.output, ContainsSubstring("# ncclsweep diagnose: budget 3 min (preflight 5 s, platform 30 s"));
  CHECK(at85.doc.at("phases").size() == 4);
  CHECK(std::filesystem::exists(std::filesystem::path(at85.doc.at("results").get<std::string>()) / "run" / "run.json"));
  CHECK(std::filesystem::exists(std::filesystem::path(at85.doc.at("results").get<std::string>()) / "probe" / "probe.json"));

  // A diagnose directory as the reference brings its probe figures: one host's platform
  // is then judged against them, where against the other hosts it could not be.
  {
    // Only the platform rows are judged here: the calls run unslowed.
    const Diagnosed again = diagnose(dir / "against-85", at85.doc.at("results").get<std::string>(), one_host, {});
    CHECK(layer(at85.doc, "platform").at("verdict") == "unresolved");
    CHECK(layer(again.doc, "platform").at("reference") == "the reference's probe figures");
    CHECK(layer(again.doc, "platform").at("verdict") != "unresolved");
  }

  // --plan states the budget the diagnose announced and what its calls' phase measures,
  // and measures nothing.
  {
    const std::string announced = "# ncclsweep diagnose: budget ";
    const auto from = at85.launch.output.find(announced) + announced.size();
    const std::string budget = at85.launch.output.substr(from, at85.launch.output.find('\n', from) - from);
    std::vector<std::string> args = with({"diagnose", "--engine", "mpi", "--reference", reference.string()}, kCalls);
    args = with(args, {"--budget", "3m", "--plan", "-o", (dir / "plan").string(), "--inject-fault", "1:slow=53"});
    std::vector<AppContext> apps = one_host;
    for (auto& app : apps) app.args = args;
    const Launch plan = mpirun_mpmd(apps);
    INFO(plan.output);
    CHECK(plan.status == 0);
    CHECK_THAT(plan.output, ContainsSubstring("\nbudget " + budget + "\n"));
    CHECK_THAT(plan.output, ContainsSubstring("2 ranks on 1 host"));
    // 3 sizes, 2 placements, 5 repeats: the reference's, which diagnose takes without --repeats
    CHECK_THAT(plan.output, ContainsSubstring("30 measurements (calls x placements x repeats), 5 repeats (as the reference's 5)"));
    CHECK_THAT(plan.output, ContainsSubstring("hosts and links  0 s: not measured: one host"));
    CHECK_FALSE(std::filesystem::exists(dir / "plan"));

    // A budget that holds the calls but not the reference's five repeats of them takes
    // fewer (36 s: 1 s for the calls, 0.02 s timed each, half the phase timed); --repeats
    // the user gives is refused instead.
    args = with({"diagnose", "--engine", "mpi", "--reference", reference.string()}, kCalls);
    args = with(args, {"--budget", "36s", "--plan", "-o", (dir / "plan").string()});
    apps = one_host;
    for (auto& app : apps) app.args = args;
    const Launch tight = mpirun_mpmd(apps);
    INFO(tight.output);
    CHECK(tight.status == 0);
    CHECK_THAT(tight.output, ContainsSubstring("24 measurements (calls x placements x repeats), 4 repeats (the budget does not "
                                               "hold the reference's 5)"));
    for (auto& app : apps) app.args = with(args, {"--repeats", "5"});
    const Launch refused = mpirun_mpmd(apps);
    INFO(refused.output);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.output, ContainsSubstring("cannot hold the phases"));
  }

  // The same factor as the reference: nothing is a cause, and the gate passes or names
  // the repeats that would settle it. That is the tool's claim while the machine holds
  // steady between launches. Where a FAIL comes, a second reference measured right after
  // tells which: if it also FAILs against the first, the machine itself moved (another
  // guest, clocks) and the pair is measured again against it, up to three times; if it
  // does not, diagnose measured the same calls differently from run, and the checks below fail.
  Diagnosed at100;
  bool machine_moved = false;
  for (int attempt = 0; attempt < 3; ++attempt) {
    at100 = diagnose(dir / ("100-" + std::to_string(attempt)), reference, one_host, {"--inject-fault", "1:slow=45"});
    machine_moved = false;
    if (at100.doc.at("acceptance").at("verdict") != "FAIL") break;
    const Remeasured again = remeasure_reference(dir, one_host, 45, reference, "reference-again-" + std::to_string(attempt));
    machine_moved = again.machine_moved;
    if (!machine_moved) break;
    reference = again.reference;
  }
  if (machine_moved) {
    NCCLSWEEP_SKIP("the machine moved between launches three times: each time a rerun of the reference itself "
                   "FAILed against the one before it, so a 100% run's FAIL says nothing about diagnose here");
  }
  INFO(at100.launch.output);
  CHECK(at100.doc.at("acceptance").at("verdict") != "FAIL");
  CHECK((at100.launch.status == 0 || at100.launch.status == 5));
  CHECK(causes(at100.doc).empty());
  if (at100.launch.status == 5) {
    // It names what settles it: the repeats, or a steadier reference where its spread alone spans the target.
    const json& gate = at100.doc.at("acceptance");
    const std::string next = layer(at100.doc, "collectives").at("next");
    if (!gate.at("repeats_to_settle").is_null()) {
      CHECK_THAT(next, ContainsSubstring("--repeats " + std::to_string(gate.at("repeats_to_settle").get<int>())));
    } else if (gate.at("reference_too_noisy").get<bool>()) {
      CHECK_THAT(next, ContainsSubstring("a steadier reference"));
    } else {
      CHECK_THAT(next, ContainsSubstring("no number of repeats"));
    }
  }
}

TEST_CASE("diagnose against a reference of another rank count: unresolved, naming the launch that compares; a phase that stops", "[untimed]") {
  const auto dir = scratch_dir("diagnose-ranks");
  const std::filesystem::path reference = reference_run(dir, {{1, {}, {}}}, 1);
  const Diagnosed two = diagnose(dir / "two", reference, {{2, {}, {}}}, {});
  INFO(two.launch.output);
  CHECK(two.launch.status == 5);
  const json& calls = layer(two.doc, "collectives");
  CHECK(calls.at("verdict") == "unresolved");
  CHECK_THAT(calls.at("here").get<std::string>(), ContainsSubstring("NEW ran on 2 ranks, REFERENCE on 1"));
  CHECK(calls.at("next") == "launch diagnose on 1 rank, as the reference ran, or give a reference measured on 2 ranks");
  CHECK(two.launch.output.find("--allow-rank-mismatch") == std::string::npos);  // compare's flag, not diagnose's

  // A phase that stops (here the calls' run, whose directory is a file) ends the launch
  // with its status, and what the phases before it measured is still judged and written.
  std::filesystem::create_directories(dir / "stopped");
  std::ofstream(dir / "stopped" / "run") << "not a directory\n";
  const Diagnosed stopped = diagnose(dir / "stopped", reference, {{1, {}, {}}}, {});
  INFO(stopped.launch.output);
  CHECK(stopped.launch.status == 2);
  CHECK_THAT(stopped.launch.output, ContainsSubstring("cannot create results directory"));
  const json& stopped_calls = layer(stopped.doc, "collectives");
  CHECK(stopped_calls.at("verdict") == "unresolved");
  CHECK_THAT(stopped_calls.at("here").get<std::string>(), ContainsSubstring("the phase stopped with exit status 2"));
  CHECK(layer(stopped.doc, "preflight").at("verdict") == "fine");
  CHECK(std::filesystem::exists(dir / "stopped" / "probe" / "probe.json"));
  CHECK_THAT(stopped.doc.at("notes").dump(), ContainsSubstring("stopped in its collectives phase"));

  // locate's phase refused (its directory is a file): its words printed once, by the
  // command; the row says the phase stopped. Not where: mpirun forwards each rank's stdout
  // and stderr on channels of their own, so their order in one capture is not kept.
  std::filesystem::create_directories(dir / "stopped-hosts");
  std::ofstream(dir / "stopped-hosts" / "locate") << "not a directory\n";
  const Diagnosed hosts_stopped = diagnose(dir / "stopped-hosts", reference, fake_hosts(2), {});
  INFO(hosts_stopped.launch.output);
  CHECK(hosts_stopped.launch.status == 2);
  const std::string& said = hosts_stopped.launch.output;
  const auto error_at = said.find("ncclsweep: error: ");
  REQUIRE(error_at != std::string::npos);
  CHECK(said.find("ncclsweep: error: ", error_at + 1) == std::string::npos);
  CHECK_THAT(said, ContainsSubstring("{\n  \"acceptance\""));
  CHECK_THAT(layer(hosts_stopped.doc, "hosts and links").at("here").get<std::string>(),
             ContainsSubstring("the phase stopped with exit status 2"));
}

TEST_CASE("diagnose: a CPU hog and an NCCL variable, each on one host, on their layers and hosts") {
  const auto dir = scratch_dir("diagnose-hog");
  const std::vector<std::string> bound{"--bind-to", "core", "--map-by", "core"};
  const auto reference = reference_run(dir, fake_hosts(2), 1);
  const Diagnosed d = diagnose(dir / "hog", reference, fake_hosts(2, {"NCCL_IB_HCA=mlx5_0"}),
                               {"--inject-fault", "1:cpu-hog"}, bound);
  INFO(d.launch.output);
  // h1, the hogged host (on a machine shared with other work another may stand out too),
  // or, as probe's own test allows, probe's note that the aid did not make it stand out.
  const json& platform = layer(d.doc, "platform");
  const auto platform_hosts = platform.at("hosts").get<std::vector<std::string>>();
  if (std::find(platform_hosts.begin(), platform_hosts.end(), "h1") != platform_hosts.end()) {
    CHECK(platform.at("verdict") != "fine");
  } else {
    CHECK_THAT(d.doc.at("notes").dump(), ContainsSubstring("cpu-hog did not make host h1 stand out"));
  }
  const json& preflight = layer(d.doc, "preflight");
  CHECK(preflight.at("verdict") == "cause");
  // One rank against one: doctor cannot tell which is the odd one, and names both.
  const auto named = preflight.at("hosts").get<std::vector<std::string>>();
  CHECK(std::find(named.begin(), named.end(), "h0") != named.end());
  CHECK_THAT(preflight.at("here").get<std::string>(), ContainsSubstring("NCCL_IB_HCA"));
  CHECK(layer(d.doc, "hosts and links").at("verdict") != "cause");
}

TEST_CASE("diagnose on four hosts: a clean launch calls nothing a cause; a slowed rank is its host's") {
  const auto dir = scratch_dir("diagnose-four-hosts");
  auto reference = reference_run(dir, fake_hosts(4), 1);
  // As at 100% above: a FAIL of the clean launch counts only where a rerun of the
  // reference does not show the machine itself moving between launches.
  Diagnosed clean;
  std::filesystem::path clean_dir;
  bool machine_moved = false;
  for (int attempt = 0; attempt < 3; ++attempt) {
    clean_dir = dir / ("clean-" + std::to_string(attempt));
    clean = diagnose(clean_dir, reference, fake_hosts(4), {});
    machine_moved = false;
    if (clean.doc.at("acceptance").at("verdict") != "FAIL") break;
    const Remeasured again =
        remeasure_reference(dir, fake_hosts(4), 1, reference, "reference-again-" + std::to_string(attempt));
    machine_moved = again.machine_moved;
    if (!machine_moved) break;
    reference = again.reference;
  }
  INFO(clean.launch.output);
  CHECK(layer(clean.doc, "hosts and links").at("verdict") == "fine");  // locate ran: four hosts
  CHECK(std::filesystem::exists(clean_dir / "locate" / "run.json"));
  // Its verdicts were shown among the phases' progress, before the calls' run table.
  const auto located = clean.launch.output.find("# locate: nothing slow on 4 host(s), 4 rank(s)");
  CHECK(located != std::string::npos);
  CHECK(located < clean.launch.output.find("# all_reduce"));
  if (machine_moved) {
    // Three times the reference itself moved: the calls' layer may read that, no other.
    const auto named = causes(clean.doc);
    CHECK((named.empty() || named == std::vector<std::string>{"collectives"}));
  } else {
    CHECK(causes(clean.doc).empty());
    CHECK(clean.doc.at("acceptance").at("verdict") != "FAIL");
  }

  // 40-fold, as locate's own test: CPU timing on shared cores needs the room. The clean
  // diagnose is the reference now (its run). One repeat of the calls: at 40-fold they read
  // a few hundredths of the reference, which one repeat tells as surely as five, and the
  // host's share comes from locate's tournament, which the repeats do not touch.
  const Diagnosed slow =
      diagnose(dir / "slow", clean_dir, fake_hosts(4), {"--inject-fault", "2:slow=40", "--repeats", "1"});
  INFO(slow.launch.output);
  CHECK(slow.launch.status == 1);
  const json& hosts = layer(slow.doc, "hosts and links");
  CHECK(hosts.at("verdict") == "cause");
  CHECK(hosts.at("hosts") == json{"h2"});
  CHECK(hosts.at("share").get<double>() > 0.5);
  CHECK(causes(slow.doc) == std::vector<std::string>{"hosts and links"});
}

// The job runs with a setting that makes its calls 3x slower (a testing variable the mpi
// engine reads once, as NCCL reads its process-cached variables); the sweep names that
// value and the right one. The search's A/B confirms the fix, and its row names it.
TEST_CASE("diagnose --sweep: the setting that slows the job is the NCCL settings row's cause, with its fix") {
  const auto dir = scratch_dir("diagnose-sweep");
  const std::vector<AppContext> one_host{{2, {}, {}}};
  const auto reference = reference_run(dir, one_host, 1);
  const auto sweep = dir / "slowdown.yaml";
  std::ofstream(sweep) << "engine: mpi\nenv:\n  NCCLSWEEP_TEST_SLOWDOWN: [3, 1]\n";
  const std::vector<AppContext> slowed{{2, {"NCCLSWEEP_TEST_SLOWDOWN=3"}, {}}};
  const Diagnosed d = diagnose(dir / "slowed", reference, slowed, {"--sweep", sweep.string()});
  INFO(d.launch.output);
  CHECK(d.doc.at("acceptance").at("verdict") != "PASS");
  const json& settings = layer(d.doc, "NCCL settings");
  CHECK(settings.at("verdict") == "cause");
  CHECK_THAT(settings.at("here").get<std::string>(), ContainsSubstring("NCCLSWEEP_TEST_SLOWDOWN=1: +"));
  CHECK_THAT(settings.at("next").get<std::string>(), ContainsSubstring("set NCCLSWEEP_TEST_SLOWDOWN=1"));
  CHECK(d.doc.at("phases").size() == 5);
  CHECK_THAT(d.launch.output, ContainsSubstring("NCCL settings"));
  CHECK(std::filesystem::exists(dir / "slowed" / "settings" / "search.json"));

  // A sweep with sizes of its own would search other calls than the workload's: refused
  // at its line, before anything is measured.
  const auto sized = dir / "sized.yaml";
  std::ofstream(sized) << "engine: mpi\nsizes: 1M\nenv:\n  NCCLSWEEP_TEST_SLOWDOWN: [3, 1]\n";
  const std::string workload = std::string(NCCLSWEEP_SOURCE_DIR) + "/sweeps/workloads/llama-style-150m-2gpu-fp32.yaml";
  std::vector<std::string> args{"diagnose", "--engine", "mpi", "--reference", reference.string(), "--workload",
                                workload, "--sweep", sized.string(), "-o", (dir / "sized").string()};
  const Launch refused = mpirun_ncclsweep(2, args);
  INFO(refused.output);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, ContainsSubstring("sized.yaml:2:"));
  CHECK_THAT(refused.output, ContainsSubstring("drop sizes:"));
  CHECK_FALSE(std::filesystem::exists(dir / "sized" / "run" / "records.jsonl"));
}

TEST_CASE("diagnose refuses bad input with exit 2 before measuring", "[leaks]") {
  const auto dir = scratch_dir("diagnose-refusals");
  const Launch missing = run_ncclsweep({"diagnose", "--engine", "mpi", "--reference", "/nonexistent/ref", "-o",
                                        (dir / "missing").string()});
  INFO(missing.output);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.output, ContainsSubstring("/nonexistent/ref"));
  CHECK_FALSE(std::filesystem::exists(dir / "missing"));

  // The fixed phases alone (preflight and platform) take more than 20 s.
  const std::string reference = std::string(NCCLSWEEP_TEST_DATA) + "/nccl-tests/nccl-tests-all_gather-np2.txt";
  const Launch tight = run_ncclsweep(with({"diagnose", "--engine", "mpi", "--reference", reference, "--budget", "20s",
                                           "-o", (dir / "tight").string()},
                                          kCalls));
  INFO(tight.output);
  CHECK(tight.status == 2);
  CHECK_THAT(tight.output, ContainsSubstring("--budget 20s cannot hold the phases"));
  CHECK_FALSE(std::filesystem::exists(dir / "tight"));
  const Launch sweep = run_ncclsweep(with({"diagnose", "--engine", "mpi", "--reference", reference, "--sweep",
                                           (dir / "no-such-sweep.yaml").string(), "-o", (dir / "no-sweep").string()},
                                          kCalls));
  INFO(sweep.output);
  CHECK(sweep.status == 2);
  CHECK_THAT(sweep.output, ContainsSubstring("no-such-sweep.yaml"));
  CHECK_FALSE(std::filesystem::exists(dir / "no-sweep" / "run"));
  // The cpu-hog aid on unbound ranks of one machine would slow both hosts: refused as
  // probe refuses it, before the output directory is made.
  std::vector<AppContext> unbound = fake_hosts(2);
  for (auto& app : unbound) {
    app.args = with({"diagnose", "--engine", "mpi", "--reference", reference, "--inject-fault", "1:cpu-hog", "-o",
                     (dir / "hog").string()},
                    kCalls);
  }
  std::vector<std::string> argv = mpirun_argv(unbound);
  argv.insert(argv.begin() + 1, {"--bind-to", "none"});
  const Launch hog = run_process(argv);
  INFO(hog.output);
  CHECK(hog.status == 2);
  CHECK_THAT(hog.output, ContainsSubstring("cannot slow host h1 alone"));
  CHECK_THAT(hog.output, ContainsSubstring("--bind-to core"));
  CHECK_FALSE(std::filesystem::exists(dir / "hog"));
  const Launch budget = run_ncclsweep({"diagnose", "--engine", "mpi", "--reference", "x", "--budget", "soon"});
  INFO(budget.output);
  CHECK(budget.status == 2);
  CHECK_THAT(budget.output, ContainsSubstring("--budget 'soon' is not a duration"));
}
