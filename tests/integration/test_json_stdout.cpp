// Every command with --format json prints exactly one JSON document on stdout, whatever
// else it says while it runs: progress, `# ` lines and notes go to stderr. Each command is
// run with stdout and stderr apart, and stdout must parse as one JSON value.
#include <algorithm>
#include <initializer_list>

#include "catch_compat.hpp"
#include "integration/launch.hpp"
#include "read_file.hpp"

using namespace ncclsweep::testing;

namespace {

struct Streams {
  int status = -1;
  std::string out, err;
};

// argv run with stdout captured alone and stderr in a file beside it.
Streams run_apart(const std::vector<std::string>& argv, const std::filesystem::path& dir) {
  static int count = 0;
  const auto err_file = dir / ("stderr-" + std::to_string(++count) + ".txt");
  std::vector<std::string> shell{"sh", "-c", "exec \"$@\" 2>'" + err_file.string() + "'", "sh"};
  shell.insert(shell.end(), argv.begin(), argv.end());
  const Launch launch = run_process(shell);
  return {launch.status, launch.output, read_file(err_file)};
}

std::vector<std::string> binary_with(const std::vector<std::string>& args) {
  std::vector<std::string> argv{NCCLSWEEP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// stdout parses as one JSON document (nlohmann refuses trailing text after the value).
// `statuses`: the exits allowed (1 where findings depend on the machine).
void check_one_document(const std::string& what, const Streams& s, std::initializer_list<int> statuses = {0}) {
  INFO(what << "\nstdout:\n" << s.out << "\nstderr:\n" << s.err);
  CHECK(std::find(statuses.begin(), statuses.end(), s.status) != statuses.end());
  CHECK(nlohmann::json::accept(s.out));
  if (nlohmann::json::accept(s.out)) CHECK(nlohmann::json::parse(s.out).is_object());
}

const std::string kData = NCCLSWEEP_TEST_DATA;
const std::string kNcclTests = kData + "/nccl-tests/nccl-tests-all_gather-np2.txt";

}  // namespace

TEST_CASE("--format json keeps stdout one JSON document for every command that has it") {
  const auto dir = scratch_dir("json-stdout");
  std::filesystem::create_directories(dir);

  check_one_document("sizes", run_apart(binary_with({"sizes", "--model", "llama3-8b", "--dp", "8", "--models-dir",
                                                     NCCLSWEEP_SOURCE_DIR "/configs/models", "--format", "json"}),
                                        dir));
  check_one_document("plan", run_apart(binary_with({"plan", NCCLSWEEP_SOURCE_DIR "/sweeps/smoke-mpi.yaml", "--format",
                                                    "json", "--ranks", "64"}),
                                       dir));
  check_one_document("report of a run", run_apart(binary_with({"report", kData + "/recommend/mixed", "--format", "json"}), dir));
  check_one_document("report of nccl-tests output", run_apart(binary_with({"report", kNcclTests, "--format", "json"}), dir));
  check_one_document("report of a locate", run_apart(binary_with({"report", kData + "/locate/reference-fast", "--format", "json"}), dir));
  check_one_document("report of a soak", run_apart(binary_with({"report", kData + "/real/h200-soak-3m", "--format", "json"}), dir));
  check_one_document("compare", run_apart(binary_with({"compare", kNcclTests,
                                                       kData + "/nccl-tests/nccl-tests-all_gather-np2-launch2.txt",
                                                       "--format", "json"}),
                                          dir));
  check_one_document("recommend", run_apart(binary_with({"recommend", kData + "/recommend/mixed", "--format", "json"}), dir));
  check_one_document("locate --dry-run",
                     run_apart(binary_with({"locate", "--dry-run", "--hosts", "16", "--ranks-per-host", "8", "--format", "json"}), dir));

  // The launches: rank 0 prints the document; headers, windows and steps go to stderr.
  check_one_document("doctor", run_apart(mpirun_argv({{2, {}, {"doctor", "--no-gpu-tools", "--format", "json"}}}), dir),
                     {0, 1});
  const Streams soak = run_apart(mpirun_argv({{2, {}, {"soak", "--engine", "mpi", "--duration", "2s", "--window", "1s",
                                                       "--sizes", "64K", "--iters", "2", "--format", "json", "-o",
                                                       (dir / "soak").string()}}}),
                                 dir);
  check_one_document("soak", soak, {0, 1});
  CHECK(soak.err.find("# window 0:") != std::string::npos);
  if (nlohmann::json::accept(soak.out)) CHECK(nlohmann::json::parse(soak.out).at("results") == (dir / "soak").string());
  std::vector<AppContext> hosts;
  for (int h = 0; h < 2; ++h) {
    hosts.push_back({1, {"NCCLSWEEP_FAKE_HOSTNAME=j" + std::to_string(h)},
                     {"locate", "--engine", "mpi", "--sizes", "64K", "--iters", "2", "--format", "json", "-o",
                      (dir / "locate").string()}});
  }
  const Streams locate = run_apart(mpirun_argv(hosts), dir);
  check_one_document("locate", locate, {0, 1});
  CHECK(locate.err.find("# locate: 2 host(s)") != std::string::npos);

  // diagnose: the run phase's table and summary, like every phase's lines, go to stderr.
  const Streams diagnosed =
      run_apart(mpirun_argv({{2, {}, {"diagnose", "--engine", "mpi", "--reference", kNcclTests, "-c", "all_gather",
                                      "--sizes", "64K", "--warmup", "1", "--iters", "5", "--budget", "3m", "--format",
                                      "json", "-o", (dir / "diagnose").string()}}}),
                dir);
  check_one_document("diagnose", diagnosed, {0, 1, 5});
  CHECK(diagnosed.err.find("# Avg bus bandwidth") != std::string::npos);
}
