#pragma once
// Every reading of /proc, /sys and /etc goes through this interface, so the checks run
// unchanged on a fabricated tree in tests.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ncclsweep::doctor {

class SystemReader {
 public:
  virtual ~SystemReader() = default;
  // The whole file at an absolute path such as "/sys/...", or nothing when unreadable.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  // Entry names in a directory, sorted; empty when absent.
  virtual std::vector<std::string> list(const std::string& dir) const = 0;
  // Empty when the file opens for reading; otherwise why not ("No such file or directory").
  virtual std::string unreadable_reason(const std::string& path) const = 0;
};

// Reads paths under `root`: "/" for the machine itself, a fabricated tree in tests.
std::unique_ptr<SystemReader> make_rooted_reader(std::filesystem::path root);

// The first line of a file without surrounding white space; nothing when unreadable.
std::optional<std::string> read_line(const SystemReader& reader, const std::string& path);
// The file's first line as an integer; nothing when unreadable or not a number.
std::optional<long long> read_integer(const SystemReader& reader, const std::string& path);

// Linux CPU lists: "0-3,8,10-11" <-> {0,1,2,3,8,10,11}. Parsing ignores white space and
// stops at the first malformed part.
std::vector<int> parse_cpu_list(const std::string& text);
std::string format_cpu_list(const std::vector<int>& cpus);

// sysfs form of a PCI bus id: "00000000:18:00.0" or "0000:18:00.0" -> "0000:18:00.0".
std::string sysfs_bus_id(const std::string& bus_id);

}  // namespace ncclsweep::doctor
