#include "core/input_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/errors.hpp"
#include "core/units.hpp"

namespace ncclsweep {
namespace {

std::string file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mebibytes(std::uint64_t bytes) { return std::to_string(bytes / kMebibyte) + " MiB"; }

// The kernel's own file systems: their "regular" files are interfaces, not data. Reading
// one may block for ever (/proc/kmsg), consume what it shows (reading /proc/kmsg empties
// the kernel log) or change the system, so no user-given path is read there. ncclsweep's
// own readings of /proc and /sys (doctor, the memory limit) do not come through here.
const char* kernel_file_system(const struct statfs& fs) {
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC: return "/proc (procfs)";
    case SYSFS_MAGIC: return "/sys (sysfs)";
    case DEBUGFS_MAGIC: return "debugfs";
    case TRACEFS_MAGIC: return "tracefs";
    case SECURITYFS_MAGIC: return "securityfs";
    case SELINUX_MAGIC: return "selinuxfs";
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC: return "a cgroup file system";
    case DEVPTS_SUPER_MAGIC: return "devpts";
    case BPF_FS_MAGIC: return "bpffs";
    case PSTOREFS_MAGIC: return "pstore";
    case EFIVARFS_MAGIC: return "efivarfs";
    case BINFMTFS_MAGIC: return "binfmt_misc";
    case 0x62656570UL: return "configfs";
    case 0x65735543UL: return "fusectl";
    case 0x958458f6UL: return "hugetlbfs";
    default: return nullptr;
  }
}

[[noreturn]] void refuse_kernel_file(const std::string& path, InputKind kind, const char* file_system) {
  throw UsageError(path + " is on " + file_system + ", a kernel interface, not a file; ncclsweep reads a " +
                       std::string(kind.what) + " only from an ordinary file system",
                   "copy what you need into an ordinary file first (cp may block or consume it: check) and pass that");
}

}  // namespace

InputFile::InputFile(const std::string& path, InputKind kind) : path_(path), kind_(kind) {
  if (path.empty()) throw UsageError(std::string("an empty path was given as the ") + std::string(kind.what), "name the file");
  cap_ = input_cap(kind);  // before the open: it may throw
  // Before the open too: opening some kernel files already acts.
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) == 0) {
    if (const char* kernel = kernel_file_system(fs)) refuse_kernel_file(path, kind, kernel);
  }
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  file_ = FileDescriptor(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  const int fd = file_.get();
  if (fd < 0) {
    const int error = errno;
    throw UsageError("cannot open " + std::string(kind.what) + " " + path + ": " + std::strerror(error),
                     "check the path and its permissions");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string type = file_type_name(st.st_mode);
    throw UsageError(path + " is " + type + ", not a regular file; ncclsweep reads a " + std::string(kind.what) +
                         " only from a regular file",
                     "copy the input into a file first and pass that file");
  }
  if (::fstatfs(fd, &fs) == 0) {  // what was opened, whatever the path led to by then
    if (const char* kernel = kernel_file_system(fs)) refuse_kernel_file(path, kind, kernel);
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > cap_) throw_input_too_large(path, kind, false);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

std::size_t InputFile::read_some(char* buffer, std::size_t max) {
  for (;;) {
    const ssize_t got = ::read(file_.get(), buffer, max);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno == EINTR) continue;
    const int error = errno;
    throw UsageError("cannot read " + path_ + ": " + std::strerror(error), "check the file");
  }
}

std::size_t InputFile::read_at(char* buffer, std::size_t max, std::uint64_t offset) {
  for (;;) {
    const ssize_t got = ::pread(file_.get(), buffer, max, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno == EINTR) continue;
    const int error = errno;
    throw UsageError("cannot read " + path_ + ": " + std::strerror(error), "check the file");
  }
}

std::uint64_t input_cap(InputKind kind) {
  const char* raised = std::getenv(kMaxInputSizeVariable);
  if (raised == nullptr || *raised == '\0') return kind.max_bytes;
  try {
    return std::max<std::uint64_t>(kind.max_bytes, parse_size(raised));
  } catch (const UsageError& e) {
    throw UsageError(std::string(kMaxInputSizeVariable) + "=" + raised + ": " + e.what(), e.fix());
  }
}

void throw_input_too_large(const std::string& path, InputKind kind, bool inflated) {
  throw UsageError(path + (inflated ? " expands beyond " : " is larger than ") + mebibytes(input_cap(kind)) +
                       ", more than a " + std::string(kind.what) + " holds",
                   "check that this is the file you meant; if it is real, pass --max-input-size with a larger size "
                   "(for example --max-input-size 8G)");
}

std::string read_input_file(const std::string& path, InputKind kind) {
  InputFile file(path, kind);
  std::string text;
  text.reserve(static_cast<std::size_t>(file.size()));
  char buffer[1 << 16];
  while (const std::size_t got = file.read_some(buffer, sizeof buffer)) {
    if (text.size() + got > file.cap()) throw_input_too_large(path, kind, false);  // it grew while read
    text.append(buffer, got);
  }
  return text;
}

bool input_path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace ncclsweep
