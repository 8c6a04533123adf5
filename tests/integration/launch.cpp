#include "integration/launch.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "scratch.hpp"

namespace ncclsweep::testing {

Launch run_process(const std::vector<std::string>& argv, Capture capture) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  if (capture == Capture::together) {
    err_pipe[0] = -1;
    err_pipe[1] = out_pipe[1];
  } else if (pipe(err_pipe) != 0) {
    throw std::runtime_error("pipe failed");
  }
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      if (fd > 2) close(fd);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  if (capture == Capture::stdout_apart) close(err_pipe[1]);
  Launch launch;
  pollfd streams[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};  // -1: not polled
  char buf[4096];
  int open_streams = capture == Capture::together ? 1 : 2;
  while (open_streams > 0) {
    if (poll(streams, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll failed");
    }
    for (auto& stream : streams) {
      if (stream.fd < 0 || stream.revents == 0) continue;
      const ssize_t n = read(stream.fd, buf, sizeof buf);
      if (n > 0) {
        launch.output.append(buf, static_cast<std::size_t>(n));
        if (capture == Capture::stdout_apart && stream.fd == out_pipe[0]) launch.out.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      close(stream.fd);
      stream.fd = -1;  // poll skips negative descriptors
      --open_streams;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  launch.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return launch;
}

Launch mpirun_ncclsweep(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> argv{NCCLSWEEP_MPIEXEC, "-np", std::to_string(ranks), "--oversubscribe"};
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  argv.push_back(NCCLSWEEP_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

std::vector<std::string> mpirun_argv(const std::vector<AppContext>& apps) {
  std::vector<std::string> argv{NCCLSWEEP_MPIEXEC, "--oversubscribe"};
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  for (std::size_t i = 0; i < apps.size(); ++i) {
    if (i > 0) argv.push_back(":");
    argv.insert(argv.end(), {"-np", std::to_string(apps[i].ranks)});
    for (const auto& e : apps[i].exports) argv.insert(argv.end(), {"-x", e});
    if (!apps[i].wdir.empty()) argv.insert(argv.end(), {"-wdir", apps[i].wdir});
    argv.push_back(NCCLSWEEP_BINARY);
    argv.insert(argv.end(), apps[i].args.begin(), apps[i].args.end());
  }
  return argv;
}

Launch mpirun_mpmd(const std::vector<AppContext>& apps, Capture capture) { return run_process(mpirun_argv(apps), capture); }

Launch run_ncclsweep(const std::vector<std::string>& args) {
  std::vector<std::string> argv{NCCLSWEEP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

int visible_gpu_count() {
  const Launch list = run_process({"nvidia-smi", "-L"});
  if (list.status != 0) return 0;
  int installed = 0;
  std::istringstream lines(list.output);
  for (std::string line; std::getline(lines, line);) installed += line.rfind("GPU ", 0) == 0;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) return installed;
  // CUDA stops at the first entry that names no device ("", "-1", "none"): an index or a
  // GPU-/MIG- UUID.
  const auto names_a_device = [](const std::string& entry) {
    return (!entry.empty() && std::isdigit(static_cast<unsigned char>(entry[0]))) || entry.rfind("GPU-", 0) == 0 ||
           entry.rfind("MIG-", 0) == 0;
  };
  int listed = 0;
  std::istringstream entries(visible);
  for (std::string entry; std::getline(entries, entry, ',') && names_a_device(entry);) ++listed;
  return std::min(installed, listed);
}

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = ncclsweep::testing::scratch_root() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir.parent_path());
  return dir;
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return nlohmann::json::parse(in);
}

nlohmann::json findings_of(const std::filesystem::path& dir) {
  return read_json_file(dir / "run.json").at("verdicts").at("findings");
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace ncclsweep::testing
