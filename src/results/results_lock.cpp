#include "results/results_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "core/utc_time.hpp"

namespace ncclsweep {
namespace {

namespace fs = std::filesystem;

std::string this_host() {
  char name[HOST_NAME_MAX + 1] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

struct Holder {
  std::string host, command, since;
  long long pid = 0;
  int stopping = 0;  // the stop signal it received, or 0
  std::string text() const {
    return "host " + host + ", pid " + std::to_string(pid) + ", since " + since + ": " + command;
  }
};

Holder read_holder(int fd) {
  std::string text;
  char buffer[4096];
  for (off_t at = 0; text.size() < (1 << 16);) {  // a holder's line is short; more is not ours
    const ssize_t got = ::pread(fd, buffer, sizeof buffer, at);
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    at += got;
  }
  Holder holder;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return holder;  // empty (a lock being written) or damaged: no holder named
  holder.host = j.value("host", "");
  holder.pid = j.value("pid", 0LL);
  holder.command = j.value("command", "");
  holder.since = j.value("since", "");
  holder.stopping = j.value("stopping", 0);
  return holder;
}

bool same_file(int fd, const fs::path& path) {
  struct stat opened {}, named {};
  return ::fstat(fd, &opened) == 0 && ::lstat(path.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
         opened.st_ino == named.st_ino;
}

[[noreturn]] void refuse_held(const fs::path& dir, const Holder& holder) {
  throw UsageError("results directory " + dir.string() + " is being written by another ncclsweep (" +
                       (holder.host.empty() ? std::string("a process that is starting") : holder.text()) +
                       "); one directory takes one writer",
                   "wait until that run ends (or stop it), then go on with --resume " + dir.string() +
                       "; or write to another directory with -o DIR");
}

}  // namespace

ResultsLock::ResultsLock(fs::path path, FileDescriptor file, std::string note, std::string text)
    : path_(std::move(path)), file_(std::move(file)), note_(std::move(note)), text_(std::move(text)) {}

void ResultsLock::mark_stopping(int signal) noexcept {
  try {
    nlohmann::json j = nlohmann::json::parse(text_);
    j["stopping"] = signal;
    const std::string text = j.dump() + "\n";
    if (::ftruncate(file_.get(), 0) == 0 && ::pwrite(file_.get(), text.data(), text.size(), 0) == static_cast<ssize_t>(text.size())) {
      ::fsync(file_.get());
    }
  } catch (...) {  // the lock stays as it was: a later writer elsewhere is refused, and told the fix
  }
}

ResultsLock::~ResultsLock() {
  // Removed while still held: a writer that opened the old file finds it unlinked and retries.
  ::unlink(path_.c_str());
}

std::unique_ptr<ResultsLock> ResultsLock::take(const fs::path& dir, const std::string& command) {
  const fs::path path = dir / kResultsLockName;
  const std::string host = this_host();
  for (int attempt = 0; attempt < 100; ++attempt) {
    FileDescriptor file(open_no_follow(path, O_RDWR | O_CREAT));
    const int fd = file.get();
    if (fd < 0) {
      const int error = errno;
      throw UsageError("cannot take the lock " + path.string() + ": " +
                           (error == ELOOP ? std::string("it is a symbolic link") : std::strerror(error)),
                       error == ELOOP ? "remove the link; ncclsweep writes only files it creates itself"
                                      : "choose a writable results directory with -o DIR");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const Holder holder = read_holder(fd);
      file.close();
      if (error == EWOULDBLOCK) refuse_held(dir, holder);
      throw UsageError("cannot take the lock " + path.string() + ": " + std::strerror(error),
                       "put the results directory on a file system that supports flock, or choose another with -o DIR");
    }
    if (!same_file(fd, path)) continue;  // its holder removed it as it ended: take the new one
    const Holder left = read_holder(fd);
    std::string note;
    if (!left.host.empty() && left.host == host) {
      const bool gone = ::kill(static_cast<pid_t>(left.pid), 0) != 0 && errno == ESRCH;
      note = "took over the lock " + path.string() + " left by a run that ended without releasing it (" + left.text() +
             (gone ? "; that process is gone)" : "; it holds the lock no more)");
    } else if (!left.host.empty() && left.stopping != 0) {
      // Told to stop, and its flock is free here: its launcher killed it (mpirun's SIGKILL
      // follows the SIGTERM by a second), which is what leaves such a lock behind.
      note = "took over the lock " + path.string() + " of a run on another host that was stopped by signal " +
             std::to_string(left.stopping) + " (" + left.text() + ")";
    } else if (!left.host.empty()) {
      // Another host's process may still run: its flock may not reach this host (some
      // network file systems keep flocks local), and its pid cannot be checked from here.
      throw UsageError("results directory " + dir.string() + " holds the lock of a run on another host (" +
                           left.text() + "), which this host cannot check",
                       "if that run has ended (killed, or its node lost), remove " + path.string() +
                           " and run again; else wait for it, or write to another directory with -o DIR");
    }
    const nlohmann::json mine{{"host", host},
                              {"pid", static_cast<long long>(::getpid())},
                              {"command", command},
                              {"since", iso_utc(std::chrono::system_clock::now())}};
    const std::string text = mine.dump() + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
      const int error = errno;
      throw UsageError("cannot write the lock " + path.string() + ": " + std::strerror(error),
                       "choose a writable results directory with -o DIR");
    }
    return std::unique_ptr<ResultsLock>(new ResultsLock(path, std::move(file), std::move(note), text));
  }
  throw UsageError("cannot take the lock " + path.string() + ": other processes keep replacing it",
                   "check what else writes " + dir.string());
}

}  // namespace ncclsweep
