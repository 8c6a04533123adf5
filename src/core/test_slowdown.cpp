#include "core/test_slowdown.hpp"

#include <algorithm>
#include <charconv>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

constexpr std::string_view kOnceFamily = "NCCLSWEEP_TEST_SLOWDOWN";
constexpr std::string_view kInitFamily = "NCCLSWEEP_TEST_INIT_SLOWDOWN";

// The family name itself, or it followed by _ and more.
bool in_family(std::string_view name, std::string_view family) {
  if (name.substr(0, family.size()) != family) return false;
  return name.size() == family.size() || (name.size() > family.size() + 1 && name[family.size()] == '_');
}

[[noreturn]] void refuse(std::string_view name, std::string_view value, const std::string& why) {
  throw UsageError(std::string(name) + "='" + std::string(value) + "': " + why,
                   "write a whole factor from 1 to " + std::to_string(kMaxTestSlowdown) +
                       ", or a list of FACTOR@LOW-HIGH with sizes (either end open), e.g. 3 or 1@-512K,4");
}

int parse_factor(std::string_view name, std::string_view value, std::string_view text) {
  int factor = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || factor < 1 ||
      factor > kMaxTestSlowdown) {
    refuse(name, value, "'" + std::string(text) + "' is not a whole factor from 1 to " + std::to_string(kMaxTestSlowdown));
  }
  return factor;
}

Bytes parse_end(std::string_view name, std::string_view value, std::string_view text, Bytes open) {
  if (text.empty()) return open;
  try {
    return parse_size(text);
  } catch (const UsageError& e) {
    refuse(name, value, e.what());
  }
}

}  // namespace

std::optional<TestVariableRead> test_slowdown_variable(std::string_view name) {
  if (in_family(name, kOnceFamily)) return TestVariableRead::once_per_process;
  if (in_family(name, kInitFamily)) return TestVariableRead::each_init;
  return std::nullopt;
}

int SlowdownSchedule::factor_at(Bytes total_bytes) const {
  for (const SlowdownRange& r : ranges) {
    if (total_bytes >= r.low && total_bytes <= r.high) return r.factor;
  }
  return 1;
}

SlowdownSchedule parse_slowdown(std::string_view name, std::string_view value) {
  SlowdownSchedule schedule;
  std::string_view rest = value;
  if (rest.empty()) refuse(name, value, "an empty value");
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    SlowdownRange range;
    const std::size_t at = item.find('@');
    range.factor = parse_factor(name, value, item.substr(0, at));
    if (at != std::string_view::npos) {
      const std::string_view span = item.substr(at + 1);
      const std::size_t dash = span.find('-');
      if (dash == std::string_view::npos) refuse(name, value, "'" + std::string(span) + "' is not a range LOW-HIGH");
      range.low = parse_end(name, value, span.substr(0, dash), 0);
      range.high = parse_end(name, value, span.substr(dash + 1), kLargestSize);
      if (range.low > range.high) refuse(name, value, "the range '" + std::string(span) + "' runs backwards");
    }
    schedule.ranges.push_back(range);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return schedule;
}

TestSlowdowns::TestSlowdowns(const std::map<std::string, std::string>& environment, TestVariableRead read)
    : read_(read) {
  for (const auto& [name, value] : environment) {
    if (test_slowdown_variable(name) == read) variables_.emplace(name, std::pair(value, parse_slowdown(name, value)));
  }
}

int TestSlowdowns::factor_at(Bytes total_bytes) const {
  int factor = 1;
  for (const auto& [name, variable] : variables_) {
    factor = std::min(factor * variable.second.factor_at(total_bytes), kMaxTestSlowdown * kMaxTestSlowdown);
  }
  return factor;
}

std::optional<std::string> TestSlowdowns::value_of(std::string_view name) const {
  if (test_slowdown_variable(name) != read_) return std::nullopt;
  const auto it = variables_.find(name);
  return it == variables_.end() ? std::string() : it->second.first;
}

}  // namespace ncclsweep
