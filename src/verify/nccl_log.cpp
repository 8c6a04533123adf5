#include "verify/nccl_log.hpp"

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

}  // namespace ncclsweep
