#pragma once
// One writer per results directory. A run that writes DIR (a new run, or --resume) holds
// DIR/ncclsweep.lock: an flock(2) on it for as long as the process lives, and in it the
// holder's host, pid, command and start, so whoever is refused learns who writes DIR.
// The kernel drops the flock when the holder ends, however it ends, so a lock file left by
// a process that was killed on this host is known to be stale and is taken over.
#include <filesystem>
#include <memory>
#include <string>

#include "core/file_descriptor.hpp"

namespace ncclsweep {

inline constexpr const char* kResultsLockName = "ncclsweep.lock";

class ResultsLock {
 public:
  // Takes DIR's lock for this process; `command` is what a refused writer is told runs.
  // Throws UsageError (exit 2) when another live process holds it, naming its host, pid
  // and command, or when the lock file names a process of another host that may still
  // run (this host cannot see it). A lock left by a process of this host that is gone is
  // taken over, and note() says so.
  static std::unique_ptr<ResultsLock> take(const std::filesystem::path& dir, const std::string& command);
  ~ResultsLock();  // removes the lock file, then lets the flock go
  ResultsLock(const ResultsLock&) = delete;
  ResultsLock& operator=(const ResultsLock&) = delete;

  // "" or what taking the lock found: a stale lock of a killed run, taken over.
  const std::string& note() const { return note_; }

  // The holder was told to stop (`signal`) and its launcher may kill it before it lets
  // go: the file says so, and a writer on another host, which cannot check this process,
  // may then take the lock once the flock is free. Never throws (called at a signal).
  void mark_stopping(int signal) noexcept;

 private:
  ResultsLock(std::filesystem::path path, FileDescriptor file, std::string note, std::string text);
  std::filesystem::path path_;
  FileDescriptor file_;  // holds the flock until it closes
  std::string note_;
  std::string text_;  // what the file holds: this holder, as JSON
};

}  // namespace ncclsweep
