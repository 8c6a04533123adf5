#include "spec/value_kind.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "core/list_text.hpp"
#include "core/units.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {
namespace {

// Linux interface names are at most 15 bytes (IFNAMSIZ - 1); InfiniBand device names 63.
constexpr std::size_t kMaxInterfaceName = 15;
constexpr std::size_t kMaxHcaName = 63;
constexpr long long kMaxPort = 255;

bool same_text(std::string_view a, std::string_view b, bool exact_case) {
  if (exact_case) return a == b;
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A candidate written "MAX:N" takes any positive number after its "MAX:".
bool matches_name(std::string_view candidate, std::string_view value, bool exact_case) {
  if (candidate.size() > 2 && candidate.substr(candidate.size() - 2) == ":N") {
    const std::string_view head = candidate.substr(0, candidate.size() - 1);  // "MAX:"
    if (value.size() <= head.size() || !same_text(value.substr(0, head.size()), head, exact_case)) return false;
    const auto number = parse_whole_number(value.substr(head.size()));
    return number && *number > 0;
  }
  return same_text(candidate, value, exact_case);
}

std::vector<std::string> to_strings(std::span<const std::string_view> names) {
  return {names.begin(), names.end()};
}

std::string plural(std::string_view item) { return std::string(item) + "s"; }

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// "LL,^Simple" -> "^LL,Simple": the prefix moved to where NCCL looks for it.
std::string moved_to_front(char prefix, std::string_view value) {
  std::string rest(value);
  rest.erase(std::remove(rest.begin(), rest.end(), prefix), rest.end());
  if (prefix == '=' && !rest.empty() && rest.front() == '^') return "^=" + rest.substr(1);
  return std::string(1, prefix) + rest;
}

// Problems carry only `what` until check_value adds the fix (what the setting takes).
std::optional<ValueProblem> problem(std::string what) { return ValueProblem{std::move(what), {}}; }

std::optional<ValueProblem> unknown_name(const ValueKind& kind, std::span<const std::string_view> names,
                                         std::string_view item, std::string_view value) {
  std::string what = "unknown " + std::string(item) + " " + quoted(value);
  const std::string near = closest_name(value, to_strings(names));
  if (!near.empty()) {
    what += " (did you mean " + near + "?)";
    if (kind.exact_case && same_text(near, value, false)) what += "; NCCL compares these names case-sensitively";
  }
  return problem(what);
}

std::optional<ValueProblem> check_one_name(const ValueKind& kind, std::string_view value) {
  for (const auto candidate : kind.names) {
    if (matches_name(candidate, value, kind.exact_case)) return std::nullopt;
  }
  return unknown_name(kind, kind.names, kind.item, value);
}

// "A,B" or "^A,B": what NCCL_DEBUG_SUBSYS and the lists of NCCL_ALGO / NCCL_PROTO take.
// NCCL's strtok skips empty entries, so "A,,B" is the same as "A,B".
std::optional<ValueProblem> check_names(const ValueKind& kind, std::string_view list, std::string_view context) {
  if (!list.empty() && list.front() == '^') list.remove_prefix(1);
  int named = 0;
  for (const auto entry : split(list, ',')) {
    if (entry.empty()) continue;
    ++named;
    if (entry.front() == '^') {
      return problem("'^' excludes the whole list and goes first, not before " + quoted(entry.substr(1)) +
                     " (did you mean " + moved_to_front('^', list) + "?)");
    }
    if (auto bad = check_one_name(kind, entry)) return bad;
  }
  if (named == 0) return problem(std::string(context) + "names no " + plural(kind.item));
  return std::nullopt;
}

// NCCL_ALGO / NCCL_PROTO in NCCL 2.24+: sections separated by ';', each "collective:list"
// except the first, which may apply to every collective.
std::optional<ValueProblem> check_per_collective(const ValueKind& kind, std::string_view value) {
  const auto sections = split(value, ';');
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const std::string_view section = sections[i];
    if (section.empty()) continue;
    const auto parts = split(section, ':');
    if (parts.size() > 2) return problem(quoted(section) + " has more than one ':'");
    if (parts.size() == 1) {
      if (i > 0) {
        return problem("every section after the first names its collective: " + quoted(section) +
                       " (e.g. allreduce:" + std::string(section) + ")");
      }
      if (auto bad = check_names(kind, section, "")) return bad;
      continue;
    }
    const std::string_view collective = parts[0];
    const bool known = std::any_of(kind.prefixes.begin(), kind.prefixes.end(),
                                   [&](std::string_view p) { return same_text(p, collective, false); });
    if (!known) return unknown_name(kind, kind.prefixes, "collective", collective);
    if (auto bad = check_names(kind, parts[1], std::string(collective) + ": ")) return bad;
  }
  if (std::all_of(sections.begin(), sections.end(), [](std::string_view s) { return s.empty(); })) {
    return problem("names no " + plural(kind.item));
  }
  return std::nullopt;
}

// "[^][=]name[:port],...": NCCL's parseStringList after the two prefixes.
std::optional<ValueProblem> check_interfaces(const ValueKind& kind, std::string_view value) {
  std::string_view list = value;
  if (!list.empty() && list.front() == '^') list.remove_prefix(1);
  if (!list.empty() && list.front() == '=') list.remove_prefix(1);
  if (!list.empty() && list.front() == '^') {
    return problem("'^' goes before '=' (did you mean ^=" + std::string(list.substr(1)) + "?)");
  }
  const std::size_t max_name = kind.ports ? kMaxHcaName : kMaxInterfaceName;
  int named = 0;
  for (const auto entry : split(list, ',')) {
    if (entry.empty()) continue;
    ++named;
    const std::size_t colon = entry.find(':');
    const std::string_view name = entry.substr(0, colon);
    if (name.empty()) return problem(quoted(entry) + " has no name before ':'");
    if (name.front() == '^' || name.front() == '=') {
      return problem("'" + std::string(1, name.front()) + "' applies to the whole list and goes first, not before " +
                     quoted(entry.substr(1)) + " (did you mean " + moved_to_front(name.front(), value) + "?)");
    }
    const auto bad_char = std::find_if(name.begin(), name.end(), [](char c) {
      return std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == '^' || c == '=';
    });
    if (bad_char != name.end()) return problem(quoted(name) + " holds '" + std::string(1, *bad_char) + "', which no device name has");
    if (name.size() > max_name) {
      return problem(quoted(name) + " is longer than a device name can be (" + std::to_string(max_name) + " characters)");
    }
    if (colon == std::string_view::npos) continue;
    if (!kind.ports) return problem(quoted(entry) + ": interfaces take no ':port' (NCCL ignores it here)");
    const auto port = parse_whole_number(entry.substr(colon + 1));
    if (!port || *port < 1 || *port > kMaxPort) {
      return problem(quoted(entry) + ": the port must be a number from 1 to " + std::to_string(kMaxPort));
    }
  }
  if (named == 0) return problem("names no " + plural(kind.item));
  return std::nullopt;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Why NCCL would misread a value that is not a plain whole number, and what was meant.
std::optional<ValueProblem> misread_number(const ValueKind& kind, std::string_view value) {
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (kind.syntax == ValueSyntax::boolean) {
    for (const char* yes : {"true", "yes", "on", "enable", "enabled"}) {
      if (lower == yes) return problem(quoted(value) + " is not 0 or 1 (did you mean 1?)");
    }
    for (const char* no : {"false", "no", "off", "disable", "disabled"}) {
      if (lower == no) return problem(quoted(value) + " is not 0 or 1 (did you mean 0?)");
    }
  }
  // strtoll stops at the first letter: "4M" reaches NCCL as 4.
  if (kind.syntax == ValueSyntax::bytes) {
    try {
      const Bytes meant = parse_size(value);
      const std::size_t digits = value.find_first_not_of("0123456789");
      return problem(quoted(value) + ": NCCL reads no units and would see " + std::string(value.substr(0, digits)) +
                     " (did you mean " + std::to_string(meant) + "?)");
    } catch (const UsageError&) {
    }
  }
  // strtoll(base 0) reads a leading 0 as octal.
  const std::string_view digits = value.substr(!value.empty() && value.front() == '-' ? 1 : 0);
  if (digits.size() > 1 && digits.front() == '0' && all_digits(digits)) {
    const std::size_t first = digits.find_first_not_of('0');
    const std::string meant = std::string(value.size() > digits.size() ? "-" : "") +
                              std::string(first == std::string_view::npos ? "0" : digits.substr(first));
    return problem(quoted(value) + " starts with 0, which makes NCCL read it as octal (did you mean " + meant + "?)");
  }
  return std::nullopt;
}

std::optional<ValueProblem> check_number(const ValueKind& kind, std::string_view value) {
  const auto number = parse_whole_number(value);
  if (!number) {
    if (auto misread = misread_number(kind, value)) return misread;
    return problem(quoted(value) + " is not " + (kind.syntax == ValueSyntax::boolean ? "0 or 1" : "a whole number"));
  }
  if (*number < kind.min || *number > kind.max) return problem(std::string(value) + " is out of range");
  if (kind.step > 1 && *number % kind.step != 0) {
    return problem(std::string(value) + " is not a multiple of " + std::to_string(kind.step));
  }
  return std::nullopt;
}

std::optional<ValueProblem> check_distance(const ValueKind& kind, std::string_view value) {
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    const auto number = parse_whole_number(value);
    if (!number || *number > kind.max) {
      return problem(quoted(value) + " is not a level name or a number from 0 to " + std::to_string(kind.max));
    }
    return std::nullopt;
  }
  return check_one_name(kind, value);
}

std::string range_text(const ValueKind& kind) {
  if (kind.max == std::numeric_limits<long long>::max()) return "of at least " + std::to_string(kind.min);
  return "from " + std::to_string(kind.min) + " to " + std::to_string(kind.max);
}

}  // namespace

std::optional<long long> parse_whole_number(std::string_view text) {
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    return std::nullopt;  // strtoll would read it as octal
  }
  if (digits.empty() || !std::isxdigit(static_cast<unsigned char>(digits.front()))) return std::nullopt;
  unsigned long long magnitude = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  constexpr auto kMax = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
  if (magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
  if (negative) return magnitude == kMax + 1 ? std::numeric_limits<long long>::min() : -static_cast<long long>(magnitude);
  return static_cast<long long>(magnitude);
}

std::string describe(const ValueKind& kind) {
  switch (kind.syntax) {
    case ValueSyntax::integer:
      return "a whole number " + range_text(kind) +
             (kind.step > 1 ? ", a multiple of " + std::to_string(kind.step) : std::string()) +
             " (decimal, or hexadecimal as 0x..)";
    case ValueSyntax::boolean:
      return "0 or 1";
    case ValueSyntax::bytes:
      return "a byte count " + range_text(kind) + ", written without a unit (NCCL would read 4M as 4)";
    case ValueSyntax::name:
      return "one of " + join_text(kind.names) + (kind.exact_case ? " (spelt exactly so)" : " (any case)");
    case ValueSyntax::name_list:
      return plural(kind.item) + " " + join_text(kind.names) + " (any case), separated by commas; '^' first excludes them (^" +
             std::string(kind.names.front()) + ")";
    case ValueSyntax::per_collective_list:
      return plural(kind.item) + " " + join_text(kind.names) + " (any case), separated by commas; '^' first excludes them (^" +
             std::string(kind.names.front()) + "); per collective after ';' as " + join_text(kind.prefixes) + ": e.g. " +
             std::string(kind.names.back()) + ";allreduce:^" + std::string(kind.names.front());
    case ValueSyntax::interface_list:
      return std::string(kind.ports ? "device names (mlx5_0, or mlx5_0:1 for one port)" : "interface names (eth0, ib)") +
             ", separated by commas; each matches names that start with it, '=' first matches whole names, and '^' "
             "before that excludes them (^=" + std::string(kind.ports ? "mlx5_1" : "docker0") + ")";
    case ValueSyntax::distance:
      return "a level " + join_text(kind.names) + " (spelt exactly so), or an old-style number from 0 to " +
             std::to_string(kind.max);
    case ValueSyntax::text:
      return "any text";
  }
  return "any text";
}

std::optional<ValueProblem> check_value(std::string_view setting, const ValueKind& kind, std::string_view value) {
  std::optional<ValueProblem> found;
  const auto control = std::find_if(value.begin(), value.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
  if (value.empty()) {
    found = problem("the value is empty, which NCCL treats as not set");
  } else if (control != value.end()) {
    // The value itself goes into the message: UsageError shows its control bytes escaped.
    found = problem("the value '" + std::string(value) + "' holds a control character (code " +
                    std::to_string(static_cast<unsigned char>(*control)) + ")");
  } else {
    switch (kind.syntax) {
      case ValueSyntax::integer:
      case ValueSyntax::boolean:
      case ValueSyntax::bytes:
        found = check_number(kind, value);
        break;
      case ValueSyntax::name:
        found = check_one_name(kind, value);
        break;
      case ValueSyntax::name_list:
        found = check_names(kind, value, "");
        break;
      case ValueSyntax::per_collective_list:
        found = check_per_collective(kind, value);
        break;
      case ValueSyntax::interface_list:
        found = check_interfaces(kind, value);
        break;
      case ValueSyntax::distance:
        found = check_distance(kind, value);
        break;
      case ValueSyntax::text:
        break;
    }
  }
  if (!found) return std::nullopt;
  found->what = std::string(setting) + ": " + found->what;
  found->fix = std::string(setting) + " takes " + describe(kind);
  return found;
}

bool nccl_reads_alike(const ValueKind& kind, std::string_view a, std::string_view b) {
  if (a == b) return true;
  switch (kind.syntax) {
    case ValueSyntax::integer:
    case ValueSyntax::boolean:
    case ValueSyntax::bytes: {
      const auto x = parse_whole_number(a), y = parse_whole_number(b);
      return x && y && *x == *y;
    }
    case ValueSyntax::name:
    case ValueSyntax::name_list:
    case ValueSyntax::per_collective_list:
      if (kind.exact_case) return false;
      return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char p, char q) {
               return std::tolower(static_cast<unsigned char>(p)) == std::tolower(static_cast<unsigned char>(q));
             });
    default:
      return false;
  }
}

}  // namespace ncclsweep
