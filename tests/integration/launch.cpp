#include "integration/launch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace ncclsweep::testing {

Launch run_process(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  Launch launch;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) launch.output.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
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

Launch mpirun_mpmd(const std::vector<AppContext>& apps) {
  std::vector<std::string> argv{NCCLSWEEP_MPIEXEC, "--oversubscribe"};
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");
  for (std::size_t i = 0; i < apps.size(); ++i) {
    if (i > 0) argv.push_back(":");
    argv.insert(argv.end(), {"-np", std::to_string(apps[i].ranks)});
    for (const auto& e : apps[i].exports) argv.insert(argv.end(), {"-x", e});
    argv.push_back(NCCLSWEEP_BINARY);
    argv.insert(argv.end(), apps[i].args.begin(), apps[i].args.end());
  }
  return run_process(argv);
}

Launch run_ncclsweep(const std::vector<std::string>& args) {
  std::vector<std::string> argv{NCCLSWEEP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("ncclsweep-it-" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir.parent_path());
  return dir;
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return nlohmann::json::parse(in);
}

}  // namespace ncclsweep::testing
