#include "core/memory_limit.hpp"

#include <unistd.h>

#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "core/checked_number.hpp"
#include "core/units.hpp"

namespace ncclsweep {
namespace {

namespace fs = std::filesystem;

// Past this a cgroup limit means "none" (v1 writes 2^63 rounded down to a page).
constexpr std::uint64_t kNoLimit = std::uint64_t{1} << 62;

// Where a hierarchy is mounted and which cgroup of it this process is in.
struct Hierarchy {
  fs::path mount;        // e.g. /sys/fs/cgroup/memory
  std::string root;      // the hierarchy's path that the mount shows at `mount`
  std::string cgroup;    // this process's cgroup path in the hierarchy
  const char* file = "";  // memory.max (v2) or memory.limit_in_bytes (v1)
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool has_option(const std::string& options, const std::string& name) {
  std::istringstream in(options);
  for (std::string o; std::getline(in, o, ',');) {
    if (o == name) return true;
  }
  return false;
}

// A limit file's value: bytes, or nullopt for "max", a huge value or something unreadable.
std::optional<std::uint64_t> limit_in(const fs::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  const auto value = parse_integer_text(text);
  if (!value || *value <= 0 || static_cast<std::uint64_t>(*value) >= kNoLimit) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

std::vector<Hierarchy> memory_hierarchies(const fs::path& root) {
  std::string v1_path, v2_path;
  bool v1 = false, v2 = false;
  std::ifstream cgroups(root / "proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (line.substr(0, first) == "0" && controllers.empty()) {
      v2 = true;
      v2_path = path;
    } else if (has_option(controllers, "memory")) {
      v1 = true;
      v1_path = path;
    }
  }
  std::vector<Hierarchy> found;
  std::ifstream mounts(root / "proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    // ID PARENT MAJ:MIN ROOT MOUNT OPTIONS [TAGS...] - TYPE SOURCE SUPER_OPTIONS
    const std::vector<std::string> w = words(line);
    std::size_t dash = 0;
    while (dash < w.size() && w[dash] != "-") ++dash;
    if (dash < 5 || dash + 3 >= w.size()) continue;
    const std::string& type = w[dash + 1];
    if (type == "cgroup" && v1 && has_option(w[dash + 3], "memory")) {
      found.push_back({root / fs::path(w[4]).relative_path(), w[3], v1_path, "memory.limit_in_bytes"});
    } else if (type == "cgroup2" && v2) {
      found.push_back({root / fs::path(w[4]).relative_path(), w[3], v2_path, "memory.max"});
    }
  }
  return found;
}

}  // namespace

MemoryLimit memory_limit(const fs::path& root, std::uint64_t node_bytes) {
  MemoryLimit limit{node_bytes, node_bytes ? "this host's " + format_bytes(node_bytes) + " of memory" : ""};
  for (const Hierarchy& h : memory_hierarchies(root)) {
    // The cgroup as the mount shows it: its path below the mount's own root.
    std::string below = h.cgroup;
    if (h.root != "/" && below.compare(0, h.root.size(), h.root) == 0) below = below.substr(h.root.size());
    // This cgroup and each above it, up to the mount: the smallest limit binds.
    fs::path dir = h.mount;
    std::vector<fs::path> dirs{dir};
    for (const fs::path& part : fs::path(below).relative_path()) {
      if (part.empty() || part == "." || part == "..") continue;
      dirs.push_back(dir /= part);
    }
    for (const fs::path& d : dirs) {
      if (const auto bytes = limit_in(d / h.file); bytes && (limit.bytes == 0 || *bytes < limit.bytes)) {
        limit = {*bytes, "the memory limit of this job's cgroup, " + format_bytes(*bytes) + " (/" +
                             (d / h.file).lexically_relative(root).string() + ")"};
      }
    }
  }
  return limit;
}

MemoryLimit process_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t node = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  return memory_limit("/", node);
}

}  // namespace ncclsweep
