#include "verify/nccl_log.hpp"

#include <fstream>
#include <iterator>

#include <cctype>

namespace ncclsweep {
namespace {

std::string_view trim_line_end(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

// The NCCL_... word that ends right before `end` in `line`.
std::string variable_before(std::string_view line, std::size_t end) {
  std::size_t start = end;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(line[start - 1])) || line[start - 1] == '_')) --start;
  const std::string_view word = line.substr(start, end - start);
  return word.substr(0, 5) == "NCCL_" ? std::string(word) : std::string();
}

// "... NCCL INFO AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}"
void scan_tuning_line(std::string_view line, std::size_t bytes_end, NcclLogFacts& facts) {
  const std::size_t colon = line.rfind(": ", bytes_end);
  if (colon == std::string_view::npos) return;
  std::size_t name_start = colon;
  while (name_start > 0 && std::isalnum(static_cast<unsigned char>(line[name_start - 1]))) --name_start;
  const std::string_view name = line.substr(name_start, colon - name_start);
  const std::string_view bytes = line.substr(colon + 2, bytes_end - colon - 2);
  std::string_view rest = line.substr(bytes_end + 15);  // after " Bytes -> Algo "
  const std::string_view algorithm = rest.substr(0, rest.find(' '));
  const std::size_t proto_at = rest.find("proto ");
  if (name.empty() || bytes.empty() || proto_at == std::string_view::npos) return;
  rest = rest.substr(proto_at + 6);
  const std::string_view protocol = rest.substr(0, rest.find(' '));
  std::string choice = std::string(algorithm) + "/" + std::string(protocol);
  // channel{Lo..Hi}={0..23}: 24 channels
  if (const std::size_t eq = rest.find("={"); eq != std::string_view::npos) {
    const std::string_view range = rest.substr(eq + 2, rest.find('}', eq) - eq - 2);
    const std::size_t dots = range.find("..");
    if (dots != std::string_view::npos) {
      try {
        const int lo = std::stoi(std::string(range.substr(0, dots)));
        const int hi = std::stoi(std::string(range.substr(dots + 2)));
        choice += ", " + std::to_string(hi - lo + 1) + " channels";
      } catch (const std::exception&) {
      }
    }
  }
  facts.algorithms[std::string(name) + " " + std::string(bytes) + " B"] = choice;
}

void scan_line(std::string_view line, NcclLogFacts& facts) {
  static constexpr std::string_view kSetBy = " set by environment to ";
  static constexpr std::string_view kInvalid = "Invalid value ";
  if (const std::size_t at = line.find(kSetBy); at != std::string_view::npos) {
    const std::string variable = variable_before(line, at);
    if (!variable.empty()) facts.set_by_environment[variable] = std::string(line.substr(at + kSetBy.size()));
    return;
  }
  if (const std::size_t at = line.find(kInvalid); at != std::string_view::npos) {
    const std::string_view rest = line.substr(at + kInvalid.size());  // "X for NCCL_Y, using default Z."
    const std::size_t for_at = rest.find(" for ");
    const std::size_t comma = rest.find(',', for_at == std::string_view::npos ? 0 : for_at);
    if (for_at != std::string_view::npos && comma != std::string_view::npos) {
      facts.invalid[std::string(rest.substr(for_at + 5, comma - for_at - 5))] = std::string(rest.substr(0, for_at));
    }
    return;
  }
  if (const std::size_t at = line.find(" via "); at != std::string_view::npos && line.find("Channel") != std::string_view::npos) {
    const std::string_view rest = line.substr(at + 5);
    facts.transports.insert(std::string(rest.substr(0, rest.find(' '))));
    return;
  }
  if (const std::size_t at = line.find(" Bytes -> Algo "); at != std::string_view::npos) {
    scan_tuning_line(line, at, facts);
    return;
  }
  if (const std::size_t at = line.find(" coll channels"); at != std::string_view::npos) {
    std::size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
    if (start < at) facts.coll_channels = std::stoi(std::string(line.substr(start, at - start)));
  }
}

}  // namespace

void scan_nccl_log(std::string_view text, NcclLogFacts& facts) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    scan_line(trim_line_end(text.substr(0, end)), facts);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

std::string_view name_of(SettingStatus status) {
  switch (status) {
    case SettingStatus::applied: return "applied";
    case SettingStatus::not_read: return "not-read";
    case SettingStatus::mismatch: return "mismatch";
    default: return "by-config";
  }
}

SettingStatus verify_env_setting(const NcclLogFacts& facts, const std::string& variable, const std::string& value) {
  if (facts.invalid.count(variable)) return SettingStatus::mismatch;
  const auto seen = facts.set_by_environment.find(variable);
  if (seen == facts.set_by_environment.end()) return SettingStatus::not_read;
  // Integer parameters end their line with a period; string variables do not.
  const bool same = seen->second == value || seen->second == value + ".";
  return same ? SettingStatus::applied : SettingStatus::mismatch;
}

const NcclLogFacts& NcclLogFollower::update() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return facts_;  // nothing logged yet
  in.seekg(static_cast<std::streamoff>(offset_));
  std::string added((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t complete = added.rfind('\n');
  if (complete == std::string::npos) return facts_;  // a line still being written waits
  scan_nccl_log(std::string_view(added).substr(0, complete + 1), facts_);
  offset_ += complete + 1;
  return facts_;
}

}  // namespace ncclsweep
