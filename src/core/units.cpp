#include "core/units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

struct Unit {
  std::string_view suffix;
  Bytes multiplier;
};

constexpr Bytes kKi = 1024;
// The lowercase single letters read as nccl-tests reads them (-e 128m is 128 MiB there).
constexpr std::array<Unit, 17> kUnits{{
    {"KiB", kKi}, {"MiB", kKi * kKi}, {"GiB", kKi * kKi * kKi}, {"TiB", kKi * kKi * kKi * kKi},
    {"KB", 1000}, {"MB", 1000'000}, {"GB", 1000'000'000}, {"TB", 1000'000'000'000},
    {"K", kKi}, {"M", kKi * kKi}, {"G", kKi * kKi * kKi}, {"T", kKi * kKi * kKi * kKi},
    {"B", 1}, {"k", kKi}, {"m", kKi * kKi}, {"g", kKi * kKi * kKi}, {"b", 1},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

UsageError bad_size(std::string_view text, const std::string& why) {
  return UsageError("invalid size '" + std::string(text) + "': " + why,
                    "write sizes like 1048576, 64K, 1M, 4G (powers of 1024) or 100MB (powers of 1000)");
}

}  // namespace

Bytes parse_size(std::string_view text) {
  const std::string_view s = trim(text);
  if (s.empty()) throw bad_size(text, "empty");
  std::size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0) {
    if (s.front() == '-') throw bad_size(text, "sizes cannot be negative");
    throw bad_size(text, "it does not start with a number");
  }
  Bytes value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + digits, value);
  if (ec == std::errc::result_out_of_range) throw bad_size(text, "the number is too large");
  const std::string_view suffix = s.substr(digits);
  Bytes multiplier = 1;
  if (!suffix.empty()) {
    const auto unit = std::find_if(kUnits.begin(), kUnits.end(),
                                   [&](const Unit& u) { return u.suffix == suffix; });
    if (unit == kUnits.end()) {
      if (suffix.front() == '.') throw bad_size(text, "fractions are not allowed; use a smaller unit");
      throw bad_size(text, "unknown unit '" + std::string(suffix) + "'");
    }
    multiplier = unit->multiplier;
  }
  if (value > std::numeric_limits<Bytes>::max() / multiplier) throw bad_size(text, "the size overflows 64 bits");
  // No buffer can be that large (address spaces end well before), and a size beyond it
  // overflows the footprint and offset arithmetic downstream.
  if (value * multiplier > kLargestSize) throw bad_size(text, "beyond 2^62 bytes (4 EiB), which no buffer can have");
  return value * multiplier;
}

std::vector<Bytes> parse_size_list(std::string_view text) {
  std::vector<Bytes> sizes;
  std::string_view rest = text;
  if (trim(rest).empty()) throw bad_size(text, "no sizes given");
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) throw bad_size(text, "an empty entry between commas");
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      sizes.push_back(parse_size(item));
      if (sizes.size() > kMaxSizesInList) {
        throw bad_size(text.substr(0, 40), "the list holds more than " + std::to_string(kMaxSizesInList) + " sizes");
      }
    } else {
      const std::string_view after_min = item.substr(colon + 1);
      const std::size_t colon2 = after_min.find(':');
      const Bytes lo = parse_size(item.substr(0, colon));
      const Bytes hi = parse_size(after_min.substr(0, colon2));
      const std::string_view step =
          colon2 == std::string_view::npos ? std::string_view("x2") : trim(after_min.substr(colon2 + 1));
      if (lo > hi) throw bad_size(item, "the range's minimum is above its maximum");
      if (step.size() < 2 || (step[0] != 'x' && step[0] != '+')) {
        throw bad_size(item, "the step must be xF (multiply) or +STEP (add), e.g. 1M:1G:x4 or 1M:8M:+1M");
      }
      const bool multiply = step[0] == 'x';
      Bytes by = 0;
      try {
        by = parse_size(step.substr(1));
      } catch (const UsageError&) {
        throw bad_size(item, "the step '" + std::string(step) + "' is not a number");
      }
      if (multiply && by <= 1) throw bad_size(item, "the factor must be > 1");
      if (!multiply && by == 0) throw bad_size(item, "the step must be > 0");
      if (lo == 0 && multiply) throw bad_size(item, "a multiplying range cannot start at 0");
      for (Bytes v = lo; v <= hi;) {
        sizes.push_back(v);
        if (sizes.size() > kMaxSizesInList) {
          throw bad_size(item, "it expands to more than " + std::to_string(kMaxSizesInList) + " sizes");
        }
        const Bytes next = multiply ? v * by : v + by;
        if ((multiply && next / by != v) || next <= v) break;  // overflow ends the range
        v = next;
      }
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string format_bytes(Bytes bytes) {
  static constexpr std::array<std::string_view, 5> kNames{"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && unit + 1 < kNames.size()) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (value == static_cast<double>(static_cast<Bytes>(value))) {
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(value), kNames[unit].data());
  } else if (value >= 1000.0) {  // %.3g would print 1000..1023.9 as 1e+03
    std::snprintf(buf, sizeof buf, "%.0f %s", value, kNames[unit].data());
  } else {
    std::snprintf(buf, sizeof buf, "%.3g %s", value, kNames[unit].data());
  }
  return buf;
}

}  // namespace ncclsweep
