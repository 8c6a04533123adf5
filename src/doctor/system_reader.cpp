#include "doctor/system_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace ncclsweep::doctor {
namespace {

class RootedReader final : public SystemReader {
 public:
  explicit RootedReader(std::filesystem::path root) : root_(std::move(root)) {}

  std::optional<std::string> read(const std::string& path) const override {
    std::ifstream in(under_root(path), std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
  }

  std::vector<std::string> list(const std::string& dir) const override {
    std::vector<std::string> names;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(under_root(dir), ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string unreadable_reason(const std::string& path) const override {
    errno = 0;
    std::ifstream in(under_root(path));
    if (in) {
      std::error_code ec;
      if (std::filesystem::is_directory(under_root(path), ec)) return "is a directory";
      return {};
    }
    return errno != 0 ? std::strerror(errno) : "cannot be opened";
  }

 private:
  std::filesystem::path under_root(const std::string& path) const {
    if (root_ == "/") return path;
    return root_ / std::filesystem::path(path).relative_path();
  }
  std::filesystem::path root_;
};

std::string trimmed(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

}  // namespace

std::unique_ptr<SystemReader> make_rooted_reader(std::filesystem::path root) {
  return std::make_unique<RootedReader>(std::move(root));
}

std::optional<std::string> read_line(const SystemReader& reader, const std::string& path) {
  const auto text = reader.read(path);
  if (!text) return std::nullopt;
  return trimmed(text->substr(0, text->find('\n')));
}

std::optional<long long> read_integer(const SystemReader& reader, const std::string& path) {
  const auto line = read_line(reader, path);
  if (!line || line->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(*line, &used);
    if (used != line->size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::set<int> cpus;
  std::string compact;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  }
  std::istringstream parts(compact);
  for (std::string part; std::getline(parts, part, ',');) {
    if (part.empty()) continue;
    int first = 0, last = 0;
    char dash = 0;
    std::istringstream range(part);
    if (!(range >> first)) break;
    last = first;
    if (range >> dash) {
      if (dash != '-' || !(range >> last) || last < first) break;
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return {cpus.begin(), cpus.end()};
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(sorted[i]);
    if (j > i) out += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

std::string sysfs_bus_id(const std::string& bus_id) {
  std::string lower;
  for (char c : bus_id) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t colon = lower.find(':');
  if (colon == std::string::npos) return lower;
  std::string domain = lower.substr(0, colon);
  if (domain.size() > 4) domain = domain.substr(domain.size() - 4);
  while (domain.size() < 4) domain = "0" + domain;
  return domain + lower.substr(colon);
}

}  // namespace ncclsweep::doctor
