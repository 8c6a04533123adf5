#include "verify/nccl_log.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include "core/checked_number.hpp"
#include "core/input_file.hpp"
#include "verify/nccl_log_line.hpp"

namespace ncclsweep {
namespace {

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
      const auto lo = parse_integer_text(range.substr(0, dots));
      const auto hi = parse_integer_text(range.substr(dots + 2));
      if (lo && hi && *hi >= *lo && *hi - *lo < 1024) choice += ", " + std::to_string(*hi - *lo + 1) + " channels";
    }
  }
  facts.algorithms[std::string(name) + " " + std::string(bytes) + " B"] = choice;
}

// NCCL's words on a line: the text after its level tag.
std::string message_of(std::string_view line) {
  const auto read = read_nccl_log_line(line);
  return std::string(read ? read->message : line);
}

// The text between the quotes that follow `after` in `line` ("" when there are none).
std::string_view quoted_after(std::string_view line, std::string_view after) {
  const std::size_t at = line.find(after);
  if (at == std::string_view::npos) return {};
  const std::size_t open = line.find('"', at + after.size());
  const std::size_t close = open == std::string_view::npos ? open : line.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

// NCCL_ALGO and NCCL_PROTO go through one list parser whose warnings quote the whole
// value but not the variable: the variable is the one NCCL logged with that value just
// before ("NCCL_PROTO set by environment to ..." precedes the parse).
void scan_list_rejection(std::string_view line, NcclLogFacts& facts) {
  std::string_view parsed = quoted_after(line, " when parsing ");
  if (parsed.empty()) parsed = quoted_after(line, "must have a prefix: ");
  if (parsed.empty()) return;
  for (const char* variable : {"NCCL_ALGO", "NCCL_PROTO"}) {
    const auto seen = facts.set_by_environment.find(variable);
    if (seen != facts.set_by_environment.end() && seen->second == parsed) facts.invalid[variable] = message_of(line);
  }
}

// "Error : no algorithm/protocol available for function AllGather with datatype ncclInt8.
// NCCL_ALGO was set to Tree." (and/or " NCCL_PROTO was set to LL."): the names are valid
// but none of them serves this call.
void scan_no_algorithm(std::string_view line, NcclLogFacts& facts) {
  for (const char* variable : {"NCCL_ALGO", "NCCL_PROTO"}) {
    if (line.find(std::string(" ") + variable + " was set to ") != std::string_view::npos) {
      facts.invalid[variable] = message_of(line);
    }
  }
}

// "Invalid NCCL_NTHREADS 100 (must be a multiple of 32)": NCCL replaced the value. (Not
// "Invalid NCCL_COMM_ID, please use format ...": that one fails the init on its own.)
void scan_clamped(std::string_view line, std::size_t at, NcclLogFacts& facts) {
  const std::string_view rest = line.substr(at + 8);  // after "Invalid "
  std::size_t name_end = 0;
  while (name_end < rest.size() && (std::isupper(static_cast<unsigned char>(rest[name_end])) ||
                                    std::isdigit(static_cast<unsigned char>(rest[name_end])) || rest[name_end] == '_')) {
    ++name_end;
  }
  std::size_t number_end = name_end + 1;
  if (number_end < rest.size() && rest[number_end] == '-') ++number_end;
  while (number_end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[number_end]))) ++number_end;
  if (name_end >= rest.size() || rest[name_end] != ' ' || number_end == name_end + 1 ||
      rest.substr(number_end, 2) != " (") {
    return;
  }
  facts.invalid[std::string(rest.substr(0, name_end))] = message_of(line);
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
    const std::size_t for_at = rest.rfind(" for NCCL_");  // X is the user's text: it may hold " for "
    const std::size_t comma = rest.find(',', for_at == std::string_view::npos ? 0 : for_at);
    if (for_at != std::string_view::npos && comma != std::string_view::npos) {
      facts.invalid[std::string(rest.substr(for_at + 5, comma - for_at - 5))] = message_of(line);
    }
    return;
  }
  if (const std::size_t at = line.find("Invalid NCCL_"); at != std::string_view::npos) {
    scan_clamped(line, at, facts);
    return;
  }
  if (line.find("Unrecognized element token") != std::string_view::npos ||
      line.find("Unrecognized prefix token") != std::string_view::npos ||
      line.find("All entries except the first must have a prefix") != std::string_view::npos) {
    scan_list_rejection(line, facts);
    return;
  }
  if (line.find("no algorithm/protocol available") != std::string_view::npos) {
    scan_no_algorithm(line, facts);
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
    const auto channels = parse_integer_text(line.substr(start, at - start));
    if (channels && *channels < 1024) facts.coll_channels = static_cast<int>(*channels);
  }
}

}  // namespace

void scan_nccl_log(std::string_view text, NcclLogFacts& facts) {
  for_each_log_line(text, [&facts](std::string_view line, int) { scan_line(line, facts); });
}

namespace {

// The integer `text` holds in full, read as NCCL reads it (strtoll, base 0).
std::optional<long long> whole_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 0);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

SettingStatus verify_env_setting(const NcclLogFacts& facts, const std::string& variable, const std::string& value) {
  if (facts.invalid.count(variable)) return SettingStatus::mismatch;
  const auto seen = facts.set_by_environment.find(variable);
  if (seen == facts.set_by_environment.end()) return SettingStatus::not_read;
  if (seen->second == value) return SettingStatus::applied;
  // Integer parameters end their line with a period and show the value NCCL parsed.
  const std::string& logged = seen->second;
  if (logged.size() > 1 && logged.back() == '.') {
    const auto parsed = whole_integer(logged.substr(0, logged.size() - 1));
    const auto wanted = whole_integer(value);
    if (parsed && wanted && *parsed == *wanted) return SettingStatus::applied;
  }
  return SettingStatus::mismatch;
}

void NcclLogFollower::mark_point() {
  update();  // what is logged so far belongs to earlier points
  point_facts_ = NcclLogFacts{};
}

const NcclLogFacts& NcclLogFollower::update() {
  if (!input_path_exists(path_)) return facts_;  // nothing logged yet
  InputFile in(path_, kJobLogInput);              // a regular file, not what a link planted
  std::string added;
  char buffer[1 << 16];
  while (const std::size_t got = in.read_at(buffer, sizeof buffer, offset_ + added.size())) {
    added.append(buffer, got);
  }
  const std::size_t complete = added.rfind('\n');
  if (complete == std::string::npos) return facts_;  // a line still being written waits
  const std::string_view lines = std::string_view(added).substr(0, complete + 1);
  scan_nccl_log(lines, facts_);
  scan_nccl_log(lines, point_facts_);
  offset_ += complete + 1;
  return facts_;
}

}  // namespace ncclsweep
