#pragma once
// Runs ncclsweep (under mpirun or alone) as a child process and captures what it says.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace ncclsweep::testing {

struct Launch {
  int status = -1;     // exit status, or 128 + signal
  std::string output;  // stdout and stderr together
  std::string out;     // stdout alone, with Capture::stdout_apart; empty otherwise
};

// together: one pipe for both, so one process's lines keep their order. stdout_apart: a
// pipe each, for a document on stdout that must stay whole (mpirun forwards ranks' stdout
// and stderr on channels of their own, so a stderr line can land inside it in `output`).
enum class Capture { together, stdout_apart };

// Runs argv through /bin/sh-free fork/exec, output captured through pipes.
Launch run_process(const std::vector<std::string>& argv, Capture capture = Capture::together);

// mpirun -np N [--oversubscribe, --allow-run-as-root as needed] ncclsweep ARGS...
Launch mpirun_ncclsweep(int ranks, const std::vector<std::string>& args);

// One app context of an MPMD launch: its rank count, its -x NAME=VALUE variables and
// ncclsweep's arguments.
struct AppContext {
  int ranks = 1;
  std::vector<std::string> exports;  // "NAME=VALUE"
  std::vector<std::string> args;
  std::string wdir;  // its ranks' working directory (-wdir); empty: mpirun's
};

// mpirun [options] -np N -x A=1 ncclsweep ARGS : -np M -x A=2 ncclsweep ARGS ...
// mpirun [-x NAME=VALUE ...] -np N ncclsweep ARGS : ...: one app context per element.
std::vector<std::string> mpirun_argv(const std::vector<AppContext>& apps);
Launch mpirun_mpmd(const std::vector<AppContext>& apps, Capture capture = Capture::together);

// ncclsweep ARGS... without a launcher.
Launch run_ncclsweep(const std::vector<std::string>& args);

// A JSON file parsed (run.json, records, report output); throws naming the file when it
// cannot be read, which fails the test.
nlohmann::json read_json_file(const std::filesystem::path& path);

// GPUs a rank started from here would see: nvidia-smi's list, narrowed by
// CUDA_VISIBLE_DEVICES when it is set. 0 where nvidia-smi is missing (no driver).
int visible_gpu_count();

// The verdicts' findings in DIR/run.json (locate's and soak's).
nlohmann::json findings_of(const std::filesystem::path& dir);

// `args` followed by `more`: one command line built from a shared base.
std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more);

// A new empty directory for one test.
std::filesystem::path scratch_dir(const std::string& name);

}  // namespace ncclsweep::testing
