#include "results/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  int error = 0;
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = errno;
  } else {
    error = write_all(fd, text);
    if (error == 0 && ::fsync(fd) != 0) error = errno;
    if (::close(fd) != 0 && error == 0) error = errno;
  }
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    throw RuntimeFailure("writing " + path.string(),
                         std::string(std::strerror(error)) + "; " +
                             (std::filesystem::exists(path) ? "the previous " + path.filename().string() + " is kept"
                                                            : "it was not written"));
  }
}

void append_synced(const std::filesystem::path& path, const std::string& lines) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw RuntimeFailure("opening " + path.string(), std::strerror(errno));
  struct stat status {};
  const off_t before = ::fstat(fd, &status) == 0 ? status.st_size : 0;
  int error = write_all(fd, lines);
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (error != 0 && ::ftruncate(fd, before) != 0) {
    // The partial line stays; readers skip a torn last line.
  }
  ::close(fd);
  if (error != 0) {
    throw RuntimeFailure("writing " + path.string(), std::string(std::strerror(error)) + "; every complete line before it is kept");
  }
}

}  // namespace ncclsweep
