// The attack classes of docs/reliability.md ("Hostile inputs"), each closed in the layer
// that owns it and judged here without processes: a collective named twice, caps before
// the work they would cost (lists, grids, JSON depth, values and lines, YAML documents),
// kernel file systems, escaped messages, numbers read back range-checked, the memory a
// cgroup allows, one writer per results directory, a refused run's directory left
// reusable, a directory removed mid-run, a failed write of an output file, ranks that
// planned different runs, and a stop signal marking the files at once.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <tuple>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "catch_compat.hpp"
#include "in_process_launch.hpp"
#include "paced_engine.hpp"
#include "read_file.hpp"
#include "thread_ranks.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/list_text.hpp"
#include "core/memory_limit.hpp"
#include "core/output_file.hpp"
#include "core/units.hpp"
#include "core/yaml_guard.hpp"
#include "plan/measurement_plan.hpp"
#include "report/log_lines.hpp"
#include "results/record_json.hpp"
#include "results/results_directory.hpp"
#include "results/results_lock.hpp"
#include "results/resume.hpp"
#include "runtime/plan_agreement.hpp"
#include "runtime/run_plan.hpp"
#include "spec/run_spec.hpp"

using namespace ncclsweep;
using namespace ncclsweep::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string attack_dir_text(const fs::path& dir) { return dir.string(); }

std::size_t robust_count_lines(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// A record line as ncclsweep writes it, with one field replaced.
std::string record_line_with(const std::string& field, const json& value) {
  MeasurementRecord r;
  r.collective = &collective("all_reduce");
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.size_bytes = r.requested_bytes = 1024;
  r.count = 256;
  r.ranks = 2;
  r.warmup = 1;
  r.iters = 3;
  r.time_us = {1, 1, 1};
  r.host_time_us = {1, 1, 1};
  json j = r;
  j[field] = value;
  return j.dump() + "\n";
}

fs::path write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("a collective named twice is measured once, where it came first", "[attack]") {
  const auto names = [](const std::string& text) {
    std::string out;
    for (const CollectiveKind* c : parse_collective_list(text)) out += std::string(c->name) + " ";
    return out;
  };
  const std::string every = names("all");
  CHECK(names("all_reduce,all") == "all_reduce " + [&] {
    std::string rest;
    for (const CollectiveKind* c : parse_collective_list("all")) {
      if (std::string(c->name) != "all_reduce") rest += std::string(c->name) + " ";
    }
    return rest;
  }());
  CHECK(names("all,all_reduce") == every);
  CHECK(names("broadcast,all_gather,broadcast") == "broadcast all_gather ");
  CHECK(parse_collective_list("all_reduce,all").size() == all_collectives().size());
}

TEST_CASE("lists and grids are capped before they are expanded", "[attack]") {
  std::string long_list;
  for (std::size_t i = 0; i <= kMaxListEntries; ++i) long_list += (i ? "," : "") + std::to_string(i + 1) + "K";
  CHECK_THAT(usage_error_text([&] { split_list(long_list, "buffer footprint"); }),
             ContainsSubstring("more than " + std::to_string(kMaxListEntries) + " entries"));
  CHECK_THAT(usage_error_text([&] { parse_size_list(long_list); }),
             ContainsSubstring("more than " + std::to_string(kMaxSizesInList) + " sizes"));
  // A list of distinct entries at the cap is split in well under a second (no n^2 search).
  long_list.resize(long_list.rfind(','));
  const auto start = std::chrono::steady_clock::now();
  CHECK(split_list(long_list, "x").size() == kMaxListEntries);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));

  // 10 dtypes x 3,000 sizes x 4 footprints is 120,000 measurements: refused at the sizes' place
  // before one is planned.
  RunSpec spec;
  spec.collectives = {&collective("all_gather")};
  spec.dtypes.clear();
  for (const char* t : {"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16"}) {
    spec.dtypes.push_back(&data_type(t));
  }
  spec.sizes = parse_size_list("1K:3000K:+1K");
  spec.footprints = parse_footprint_list("largest,exact,1G,2G");
  const std::string refused = usage_error_text([&] { plan_measurements(spec, 2, {"sweep.yaml", 3, 1}); });
  CHECK_THAT(refused, ContainsSubstring("sweep.yaml:3:1"));
  CHECK_THAT(refused, ContainsSubstring("120000 measurements per point"));
  CHECK_THAT(refused, ContainsSubstring(std::to_string(kMaxPlannedCalls)));
  spec.footprints = parse_footprint_list("largest");
  CHECK(plan_measurements(spec, 2).calls.size() == 30000);
}

TEST_CASE("a second YAML document is refused at its line without reading the rest", "[attack]") {
  std::string text = "collectives: [all_reduce]\n";
  while (text.size() < 8 * kMebibyte) text += "---\n";
  const auto start = std::chrono::steady_clock::now();
  try {
    load_one_yaml_document(text, "many.yaml");
    FAIL("accepted");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("more than one YAML document"));
    CHECK(e.where().file == "many.yaml");
    CHECK(e.where().line == 2);
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(load_one_yaml_document("a: 1\n", "one.yaml")["a"].as<int>() == 1);
}

TEST_CASE("a NUL byte in a YAML file is refused at its line and column as not text", "[attack]") {
  // A UTF-16 file: every ASCII character followed by a NUL.
  const std::string utf16("n\0a\0m\0e\0:\0 \0x\0\n\0", 16);
  for (const auto& [text, line, column] : {std::tuple{std::string("a: 1\nb: 2\0\n", 11), 2, 5}, std::tuple{utf16, 1, 2}}) {
    try {
      load_one_yaml_document(text, "bin.yaml");
      FAIL("accepted");
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), ContainsSubstring("NUL byte"));
      CHECK(e.where().line == line);
      CHECK(e.where().column == column);
    }
  }
}

TEST_CASE("JSON past its depth, its values or its line length is refused at file and line", "[attack]") {
  const std::string deep = std::string(kMaxJsonDepth + 2, '[') + std::string(kMaxJsonDepth + 2, ']');
  CHECK_THAT(usage_error_text([&] { parse_json_input(deep, {"deep.json", 4, 0}, 1000); }),
             ContainsSubstring("deep.json:4") && ContainsSubstring("nests deeper than 64"));
  std::string numbers = "[";
  for (int i = 0; i < 1000; ++i) numbers += std::to_string(i) + ",";
  numbers += "0]";
  CHECK_THAT(usage_error_text([&] { parse_json_input(numbers, {"n.json"}, 500); }),
             ContainsSubstring("more than 500 values"));
  CHECK(parse_json_input(numbers, {"n.json"}, 5000).size() == 1001);
  const std::string long_line(kMaxJsonLineBytes + 1, ' ');
  CHECK_THAT(usage_error_text([&] { parse_json_line(long_line, {"records.jsonl", 7, 0}); }),
             ContainsSubstring("records.jsonl:7") && ContainsSubstring("MiB any record takes"));
  // The value cap rises with the file's cap (--max-input-size), never below it.
  const std::uint64_t values = max_json_values(kResultsFileInput);
  ::setenv(kMaxInputSizeVariable, "8G", 1);
  CHECK(max_json_values(kResultsFileInput) > values);
  // So does the line cap, to a 64th of it: a traced soak window of many hosts is one line.
  CHECK(max_json_line_bytes() == 128 * kMebibyte);
  const std::string long_array = "[" + std::string(kMaxJsonLineBytes, ' ') + "]";
  CHECK(parse_json_line(long_array, {"records.jsonl", 7, 0}).empty());
  ::unsetenv(kMaxInputSizeVariable);
  CHECK(max_json_values(kResultsFileInput) == values);
  CHECK(max_json_line_bytes() == kMaxJsonLineBytes);
  CHECK_THAT(usage_error_text([&] { parse_json_line(long_array, {"records.jsonl", 7, 0}); }),
             ContainsSubstring("--max-input-size raises the limit"));
}

TEST_CASE("records.jsonl: a line past a limit is refused wherever it is, never dropped as cut off", "[attack]") {
  const fs::path dir = fresh_dir("attack-records");
  const std::string good = record_line_with("repeat", 0);
  // Deeply nested JSON as the last line, newline and all: refused, not "measured again".
  const std::string deep = "{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}\n";
  CHECK_THAT(usage_error_text([&] { read_recorded_measurements(write_text(dir / "deep.jsonl", good + deep)); }),
             ContainsSubstring("deep.jsonl:2") && ContainsSubstring("nests deeper"));
  // A record-shaped JSON line that is not a record: refused too.
  CHECK_THAT(usage_error_text([&] { read_recorded_measurements(write_text(dir / "other.jsonl", good + "{\"a\": 1}\n")); }),
             ContainsSubstring("line 2 is not a measurement record"));
  // A line longer than any record, first in the file.
  const std::string huge = "[" + std::string(kMaxJsonLineBytes, ' ') + "]\n";
  CHECK_THAT(usage_error_text([&] { read_recorded_measurements(write_text(dir / "huge.jsonl", huge + good)); }),
             ContainsSubstring("huge.jsonl:1") && ContainsSubstring("MiB long"));
}

TEST_CASE("numbers read back from a record are range-checked like numbers from flags", "[attack]") {
  const fs::path dir = fresh_dir("attack-numbers");
  const auto refusal = [&](const std::string& field, const json& value) {
    return usage_error_text(
        [&] { read_recorded_measurements(write_text(dir / (field + ".jsonl"), record_line_with(field, value) + "\n")); });
  };
  CHECK_THAT(refusal("count", -256), ContainsSubstring("count is -256, below 0") && ContainsSubstring("line 1"));
  CHECK_THAT(refusal("warmup", -1), ContainsSubstring("warmup is -1"));
  CHECK_THAT(refusal("iters", 2.5), ContainsSubstring("not a whole number"));
  CHECK_THAT(refusal("repeat", -3), ContainsSubstring("repeat is -3"));
  CHECK_THAT(refusal("size_bytes", json(std::numeric_limits<std::uint64_t>::max())), ContainsSubstring("above"));
  CHECK_THAT(refusal("root", "0"), ContainsSubstring("not a number"));
  // In range, each reads back as written.
  const auto back = read_recorded_measurements(write_text(dir / "fine.jsonl", record_line_with("count", 255)));
  REQUIRE(back.records.size() == 1);
  CHECK(back.records[0].count == 255);
}

TEST_CASE("--inject-corrupt-rank aimed at a rank the run lacks is refused", "[attack]") {
  RunFlags flags;
  flags.corrupt_rank = 99;
  RankLayout layout;
  layout.ranks = 1;
  layout.host_memory = Bytes{64} << 30;
  CHECK_THAT(usage_error_text([&] { build_run_plan(flags, {}, layout); }),
             ContainsSubstring("--inject-corrupt-rank names rank 99, but the run has ranks 0..0"));
  flags.corrupt_rank = 0;
  CHECK(build_run_plan(flags, {}, layout).corrupt_rank == 0);
}

TEST_CASE("user-given paths on /proc and /sys are refused before they are opened", "[attack]") {
  for (const char* path : {"/proc/self/status", "/proc/kmsg", "/sys/kernel/mm/transparent_hugepage/enabled"}) {
    if (!input_path_exists(path)) continue;
    INFO(path);
    const std::string refused = usage_error_text([&] { read_input_file(path, kSettingsFileInput); });
    CHECK_THAT(refused, ContainsSubstring("a kernel interface, not a file"));
    CHECK_THAT(refused, ContainsSubstring(path));
  }
  // A regular file elsewhere is read.
  const fs::path file = write_text(fresh_dir("attack-regular") / "a.yaml", "a: 1\n");
  CHECK(read_input_file(file.string(), kSettingsFileInput) == "a: 1\n");
}

TEST_CASE("a newline or control character from input never splits a message or forges a line", "[attack]") {
  const UsageError e("cannot read sweep\nncclsweep: error: forged", "fix it\n  fix: forged too", {"a\nb.yaml", 2, 1});
  const std::string text = e.message();
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);  // the one before "  fix:"
  CHECK_THAT(text, ContainsSubstring("a\\x0ab.yaml:2:1: cannot read sweep\\x0ancclsweep: error: forged"));
  CHECK_THAT(text, ContainsSubstring("\n  fix: fix it\\x0a  fix: forged too"));
  // The printers keep a message's own fix line and escape everything else.
  CHECK(printable_message("what \x1b[31m\n  fix: this\r") == "what \\x1b[31m\n  fix: this\\x0d");
  CHECK(log_line(LogLevel::note, "a\nb") == "ncclsweep: note: a\\x0ab\n");
  CHECK(message_with_fix("x\ny", "z") == "x\\x0ay\n  fix: z");
}

TEST_CASE("the memory check reads the job's cgroup limit, v1 or v2, the smallest on its path", "[attack]") {
  const fs::path root = fresh_dir("attack-cgroup");
  const std::uint64_t node = std::uint64_t{64} << 30;
  SECTION("no cgroup files: the node's memory") {
    const MemoryLimit limit = memory_limit(root, node);
    CHECK(limit.bytes == node);
    CHECK_THAT(limit.what, ContainsSubstring("this host's"));
  }
  SECTION("cgroup v2: memory.max of the process's cgroup, or of one above it when smaller") {
    write_text(root / "proc/self/cgroup", "0::/job.slice/step_0\n");
    write_text(root / "proc/self/mountinfo",
               "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
    write_text(root / "sys/fs/cgroup/job.slice/memory.max", "1610612736\n");
    write_text(root / "sys/fs/cgroup/job.slice/step_0/memory.max", "max\n");
    const MemoryLimit limit = memory_limit(root, node);
    CHECK(limit.bytes == 1610612736);
    CHECK_THAT(limit.what, ContainsSubstring("cgroup") && ContainsSubstring("1.5 GiB") &&
                               ContainsSubstring("/sys/fs/cgroup/job.slice/memory.max"));
  }
  SECTION("cgroup v1: memory.limit_in_bytes, below a mount whose root is the job's own cgroup") {
    write_text(root / "proc/self/cgroup", "7:cpu,cpuacct:/\n4:memory:/slurm/uid_0/job_7\n0::/\n");
    write_text(root / "proc/self/mountinfo",
               "40 30 0:35 /slurm/uid_0/job_7 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
    write_text(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n");
    const MemoryLimit limit = memory_limit(root, node);
    CHECK(limit.bytes == 1073741824);
    CHECK_THAT(limit.what, ContainsSubstring("1 GiB"));
  }
  SECTION("an unlimited v1 cgroup (2^63 rounded to a page) leaves the node's memory") {
    write_text(root / "proc/self/cgroup", "4:memory:/\n");
    write_text(root / "proc/self/mountinfo", "40 30 0:35 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
    write_text(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(memory_limit(root, node).bytes == node);
  }
}

TEST_CASE("a refused input, lock or write leaves no file descriptor open", "[attack]") {
  const auto open_descriptors = [] {
    return std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{});
  };
  const fs::path dir = fresh_dir("attack-descriptors");
  fs::create_directories(dir / "a-directory");
  write_text(dir / "big.txt", std::string(2048, 'x'));
  const auto held = ResultsLock::take(dir, "ncclsweep run -o first");
  const auto before = open_descriptors();
  for (int i = 0; i < 20; ++i) {
    CHECK_THROWS_AS(InputFile((dir / "a-directory").string(), kSettingsFileInput), UsageError);  // not a regular file
    CHECK_THROWS_AS(InputFile((dir / "big.txt").string(), InputKind{"tiny input", 1024}), UsageError);  // past its cap
    CHECK_THROWS_AS(ResultsLock::take(dir, "ncclsweep run --resume"), UsageError);  // held
    CHECK(replace_file(dir / "a-directory", "text") != 0);  // a directory is not replaced by a file
    CHECK_THROWS_AS(write_output_file(dir / "a-directory", "text"), RuntimeFailure);
  }
  CHECK(open_descriptors() == before);
}

TEST_CASE("one writer per results directory: a held lock names its holder; a dead one's is taken over", "[attack]") {
  const fs::path dir = fresh_dir("attack-lock");
  fs::create_directories(dir);
  {
    const auto held = ResultsLock::take(dir, "ncclsweep run -o first");
    CHECK(held->note().empty());
    // flock is per open file: a second take, even in this process, sees the first.
    const std::string refused = usage_error_text([&] { ResultsLock::take(dir, "ncclsweep run --resume"); });
    CHECK_THAT(refused, ContainsSubstring("being written by another ncclsweep"));
    CHECK_THAT(refused, ContainsSubstring("pid " + std::to_string(::getpid())));
    CHECK_THAT(refused, ContainsSubstring("ncclsweep run -o first"));
  }
  CHECK_FALSE(fs::exists(dir / kResultsLockName));  // released: removed

  // A lock file left by a process of this host that is gone (killed: nothing released it).
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const json left{{"host", host}, {"pid", child}, {"command", "ncclsweep run -o killed"}, {"since", "earlier"}};
  write_text(dir / kResultsLockName, left.dump() + "\n");
  {
    const auto taken = ResultsLock::take(dir, "ncclsweep run --resume");
    CHECK_THAT(taken->note(), ContainsSubstring("took over the lock") && ContainsSubstring("ncclsweep run -o killed") &&
                                  ContainsSubstring("that process is gone"));
  }
  // Another host's lock: its process cannot be checked from here.
  json remote{{"host", "some-other-node"}, {"pid", 1}, {"command", "ncclsweep run"}, {"since", "earlier"}};
  write_text(dir / kResultsLockName, remote.dump() + "\n");
  CHECK_THAT(usage_error_text([&] { ResultsLock::take(dir, "x"); }),
             ContainsSubstring("some-other-node") && ContainsSubstring("remove " + attack_dir_text(dir / kResultsLockName)));
  // ... unless it was told to stop (its launcher then kills it): taken over, saying so.
  remote["stopping"] = SIGTERM;
  write_text(dir / kResultsLockName, remote.dump() + "\n");
  const auto after_stop = ResultsLock::take(dir, "x");
  CHECK_THAT(after_stop->note(), ContainsSubstring("a run on another host that was stopped by signal 15"));
  after_stop->mark_stopping(SIGINT);
  CHECK(json::parse(read_file(dir / kResultsLockName)).at("stopping") == SIGINT);
  CHECK(json::parse(read_file(dir / kResultsLockName)).at("command") == "x");
}

TEST_CASE("a run refused before it started leaves its -o directory as it found it", "[attack]") {
  const fs::path dir = fresh_dir("attack-refused");
  const LaunchRequest request = paced_request(paced_spec({4 * kKiB}), 2, dir);
  const std::vector<int> refused = run_ranks(2, [&](ThreadRank& rank) {
    const LaunchServices services{
        .make_engine = [](EngineKind) -> std::unique_ptr<Engine> { throw UsageError("this engine is not here"); },
        .received_signal = [] { return 0; },
    };
    return run_launch(rank, request, services);
  });
  CHECK(all_equal(refused, kExitUsage));
  CHECK_FALSE(fs::exists(dir));  // it created the directory, and took it away again
  const InProcessLaunch again = launch_in_process(request, 2);
  INFO(again.errors);
  CHECK(all_equal(again.statuses, kExitOk));
  CHECK(records_of(dir).size() == 2);
}

TEST_CASE("a results directory removed mid-run stops the run, saying where the records are not", "[attack]") {
  const fs::path dir = fresh_dir("attack-removed");
  const RunDocument started;
  auto sink = make_results_directory(dir);
  sink->begin(started);
  MeasurementRecord r;
  r.collective = &collective("all_reduce");
  r.dtype = &data_type("float32");
  const std::vector<MeasurementRecord> row{r};
  sink->row(row);
  const fs::path moved = dir.string() + "-moved";
  fs::remove_all(moved);
  fs::rename(dir, moved);
  try {
    sink->row(row);
    FAIL("appended to a directory that is gone");
  } catch (const RuntimeFailure& e) {
    CHECK_THAT(e.what(), ContainsSubstring("was removed or moved during the run"));
    CHECK_THAT(e.what(), !ContainsSubstring("every record measured is in"));
  }
  CHECK(robust_count_lines(moved / "records.jsonl") == 1);  // the one before, where the file went
}

TEST_CASE("a failed write of an output file is a runtime failure with the system's reason", "[attack]") {
  if (!fs::exists("/dev/full")) NCCLSWEEP_SKIP("no /dev/full on this machine");
  try {
    write_output_file("/dev/full", std::string(1 << 16, 'x'));
    FAIL("a write to /dev/full succeeded");
  } catch (const RuntimeFailure& e) {
    CHECK(e.call() == "writing /dev/full");
    CHECK_THAT(e.what(), ContainsSubstring("No space left on device"));
  }
  const fs::path file = fresh_dir("attack-output") / "out.txt";
  fs::create_directories(file.parent_path());
  write_output_file(file, "text\n");
  CHECK(read_file(file) == "text\n");
}

TEST_CASE("an output path a launch writes at its end is checked before it measures, and left as it was", "[attack]") {
  const fs::path dir = fresh_dir("attack-output-check");
  fs::create_directories(dir / "a-directory");
  const std::string missing = usage_error_text([&] { check_output_file(dir / "no-such-dir" / "hosts.svg", "--svg"); });
  CHECK_THAT(missing, ContainsSubstring("--svg " + (dir / "no-such-dir" / "hosts.svg").string()));
  CHECK_THAT(missing, ContainsSubstring("No such file or directory"));
  CHECK_THROWS_AS(check_output_file(dir / "a-directory", "--svg"), UsageError);
  // A new file is not left behind; an existing one keeps its bytes.
  check_output_file(dir / "new.svg", "--svg");
  CHECK_FALSE(fs::exists(dir / "new.svg"));
  write_output_file(dir / "old.svg", "kept\n");
  check_output_file(dir / "old.svg", "--svg");
  CHECK(read_file(dir / "old.svg") == "kept\n");
}

TEST_CASE("ranks that planned different runs are refused on every rank, naming the rank and the difference", "[attack]") {
  LaunchRequest same = paced_request(paced_spec({4 * kKiB, 8 * kKiB}), 3, "unused");
  LaunchRequest other = paced_request(paced_spec({4 * kKiB, 16 * kKiB}), 3, "unused");
  CHECK(first_plan_difference(canonical_plan(same), canonical_plan(same)).empty());
  CHECK_THAT(first_plan_difference(canonical_plan(same), canonical_plan(other)),
             ContainsSubstring("spec.sizes[1]: rank 0 has 8192, this rank has 16384"));
  std::vector<std::string> said(3);
  const std::vector<int> statuses = run_ranks({"h0", "h1", "h2"}, [&](ThreadRank& rank) {
    said[static_cast<std::size_t>(rank.rank())] =
        plan_disagreement(rank, canonical_plan(rank.rank() == 2 ? other : same));
    return 0;
  });
  for (const std::string& text : said) {
    CHECK_THAT(text, ContainsSubstring("1 rank(s) differ from rank 0: rank 2 (h2) at spec.sizes[1]"));
    CHECK(text == said[0]);
  }
  const std::vector<int> agreed = run_ranks(3, [&](ThreadRank& rank) {
    return plan_disagreement(rank, canonical_plan(same)).empty() ? 0 : 1;
  });
  CHECK(all_equal(agreed, 0));
}

TEST_CASE("a stop signal marks run.json interrupted and writes summary.md at once, while the measurement goes on",
          "[attack]") {
  const fs::path dir = fresh_dir("attack-checkpoint");
  const LaunchRequest request = paced_request(paced_spec(), 2, dir);
  std::function<void(int)> on_signal;
  json marked, lock;
  bool summary_written = false;
  const std::vector<int> statuses = run_ranks(2, [&](ThreadRank& rank) {
    const bool leader = rank.rank() == 0;
    const LaunchServices services{
        .make_engine =
            [&](EngineKind) {
              auto engine = std::make_unique<PacedEngine>();
              if (leader) {
                engine->after_timed = [&](int batches) {
                  if (batches != 5 || !on_signal) return;
                  on_signal(SIGTERM);  // as the watcher's thread calls it, mid-measurement
                  marked = json::parse(read_file(dir / "run.json"));
                  summary_written = fs::exists(dir / "summary.md");
                  lock = json::parse(read_file(dir / kResultsLockName));
                };
              }
              return std::unique_ptr<Engine>(std::move(engine));
            },
        .received_signal = [] { return 0; },  // the run itself is not stopped: only marked
        .watch_signals = [&, leader](std::function<void(int)> callback) -> std::shared_ptr<void> {
          if (leader) on_signal = std::move(callback);
          return nullptr;
        },
    };
    return run_launch(rank, request, services);
  });
  CHECK(all_equal(statuses, kExitOk));
  REQUIRE(marked.is_object());
  CHECK(marked.at("status") == "interrupted");
  // The sizes done before the 5th timed batch, whole rows of two placements each.
  CHECK(marked.at("records").size() >= 2);
  CHECK(marked.at("records").size() < 10);
  CHECK(marked.at("records").size() % 2 == 0);
  CHECK(summary_written);
  CHECK(lock.value("stopping", 0) == SIGTERM);  // another host may take a killed run's lock
  CHECK(json::parse(read_file(dir / "run.json")).at("status") == "complete");  // the run's own end wins
}
