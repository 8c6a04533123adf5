#include "results/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "core/errors.hpp"
#include "core/file_descriptor.hpp"

#include "core/output_file.hpp"

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
  // One writer for whole files (core/output_file): a fresh O_EXCL temporary renamed into
  // place, so a planted link at `path` or its temporary is never written through.
  if (const int error = replace_file(path, text); error != 0) {
    throw RuntimeFailure("writing " + path.string(),
                         std::string(std::strerror(error)) + "; " +
                             (std::filesystem::exists(path) ? "the previous " + path.filename().string() + " is kept"
                                                            : "it was not written"));
  }
}

void append_synced(const std::filesystem::path& path, const std::string& lines) {
  FileDescriptor file(open_no_follow(path, O_WRONLY | O_CREAT | O_APPEND));
  if (!file.is_open()) throw RuntimeFailure("opening " + path.string(), std::strerror(errno));
  struct stat status {};
  const off_t before = ::fstat(file.get(), &status) == 0 ? status.st_size : 0;
  int error = write_all(file.get(), lines);
  if (error == 0 && ::fsync(file.get()) != 0) error = errno;
  if (error != 0 && ::ftruncate(file.get(), before) != 0) {
    // The partial line stays; readers skip a torn last line.
  }
  if (const int closed = file.close(); error == 0) error = closed;
  if (error != 0) {
    throw RuntimeFailure("writing " + path.string(), std::string(std::strerror(error)) + "; every complete line before it is kept");
  }
}

}  // namespace ncclsweep
