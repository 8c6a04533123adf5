#include "core/checked_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ncclsweep {
namespace {

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string range_text(double lo, double hi) {
  return "a number from " + format_number(lo) + " to " + format_number(hi);
}

}  // namespace

std::optional<std::int64_t> parse_integer_text(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_finite_text(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::int64_t checked_integer(std::string_view text, std::int64_t lo, std::int64_t hi, const std::string& what,
                             const SourcePosition& where) {
  const auto value = parse_integer_text(text);
  if (!value || *value < lo || *value > hi) {
    throw UsageError(what + " '" + std::string(text) + "' is not a whole number from " + std::to_string(lo) + " to " +
                         std::to_string(hi),
                     "give a decimal whole number in that range", where);
  }
  return *value;
}

double checked_number(std::string_view text, double lo, double hi, const std::string& what,
                      const SourcePosition& where) {
  const auto value = parse_finite_text(text);
  if (!value || *value < lo || *value > hi) {
    throw UsageError(what + " '" + std::string(text) + "' is not " + range_text(lo, hi),
                     "give a finite decimal number in that range", where);
  }
  return *value;
}

double checked_value(double value, double lo, double hi, const std::string& what, const SourcePosition& where) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    throw UsageError(what + " " + (std::isnan(value) ? std::string("NaN") : format_number(value)) + " is not " +
                         range_text(lo, hi),
                     "give a finite number in that range", where);
  }
  return value;
}

}  // namespace ncclsweep
