#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/errors.hpp"
#include "core/file_descriptor.hpp"

namespace ncclsweep {

namespace fs = std::filesystem;

int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

int open_no_follow(const fs::path& path, int flags, int mode) {
  return ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

int replace_file(const fs::path& path, std::string_view text) {
  const std::string temporary = path.string() + ".tmp";
  if (::unlink(temporary.c_str()) != 0 && errno != ENOENT) return errno;
  FileDescriptor file(open_no_follow(temporary, O_WRONLY | O_CREAT | O_EXCL));
  if (!file.is_open()) return errno;
  int error = write_all(file.get(), text);
  if (error == 0 && ::fsync(file.get()) != 0) error = errno;
  if (const int closed = file.close(); error == 0) error = closed;  // some file systems report a failed write only here
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) ::unlink(temporary.c_str());
  return error;
}

void write_output_file(const fs::path& path, std::string_view text) {
  FileDescriptor file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644));
  if (!file.is_open()) throw RuntimeFailure("writing " + path.string(), std::strerror(errno));
  int error = write_all(file.get(), text);
  // A device or pipe cannot be synced (EINVAL, EROFS): what it took is all there is to know.
  if (error == 0 && ::fsync(file.get()) != 0 && errno != EINVAL && errno != EROFS) error = errno;
  if (const int closed = file.close(); error == 0) error = closed;
  if (error != 0) throw RuntimeFailure("writing " + path.string(), std::strerror(error));
}

void check_output_file(const fs::path& path, std::string_view flag) {
  struct stat st {};
  const bool existed = ::lstat(path.c_str(), &st) == 0;
  FileDescriptor file(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644));
  if (!file.is_open()) {
    throw UsageError(std::string(flag) + " " + path.string() + ": cannot write it: " + std::strerror(errno),
                     "give a path in a directory that exists and that you can write to");
  }
  file.close();
  if (!existed) ::unlink(path.c_str());
}

void refuse_planted_links(const fs::path& dir, std::initializer_list<std::string_view> files,
                          std::initializer_list<std::string_view> directories) {
  const auto check = [&dir](std::string_view name, bool directory) {
    const fs::path path = dir / name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;  // not there: it is created fresh
    const bool link = S_ISLNK(st.st_mode);
    if (!link && (directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))) return;
    throw UsageError(path.string() + (link ? " is a symbolic link" : directory ? " is not a directory" : " is not a regular file") +
                         "; ncclsweep writes its results only into files it creates itself",
                     "remove " + path.string() + " (or choose another results directory with -o DIR)");
  };
  for (const auto name : files) check(name, false);
  for (const auto name : directories) check(name, true);
}

}  // namespace ncclsweep
