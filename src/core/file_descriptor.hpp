#pragma once
// An open file descriptor, closed once, by its owner: every file ncclsweep opens itself
// (an input, records.jsonl, the results lock, a replaced file's temporary, -o output) is
// held by one, so no path out of a function, thrown or returned, leaves it open. Writes
// go through write(2) rather than stdio: after a failed write, a FILE would try to write
// its buffered half line again at fclose.
#include <cerrno>
#include <unistd.h>
#include <utility>

namespace ncclsweep {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  // Hands the descriptor to a new owner (a gzFile), which closes it.
  int release() { return std::exchange(fd_, -1); }
  // Closes now; 0, or the errno close reported (some file systems report a failed write
  // only here).
  int close() {
    if (fd_ < 0) return 0;
    const int status = ::close(std::exchange(fd_, -1));
    return status == 0 ? 0 : errno;
  }

 private:
  int fd_ = -1;
};

}  // namespace ncclsweep
