#include "core/errors.hpp"

#include <algorithm>
#include <cstdio>

#include "core/environment.hpp"

namespace ncclsweep {
namespace {

constexpr std::string_view kFixLine = "\n  fix: ";

// A piece of a message as a terminal shows it on one line: a NUL would end it (what() is a
// C string), an escape sequence from a hostile file would reach the terminal, and a
// newline from a path or a YAML value would split the message and let input forge a line.
// Control characters and bytes that are not UTF-8 become \xNN; a tab stays.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return escape_invalid_utf8(out);
}

}  // namespace

std::string printable_message(std::string_view message) {
  std::string out;
  for (std::size_t at = 0;;) {
    const std::size_t fix = message.find(kFixLine, at);
    out += printable(message.substr(at, fix == std::string_view::npos ? std::string_view::npos : fix - at));
    if (fix == std::string_view::npos) return out;
    out += kFixLine;
    at = fix + kFixLine.size();
  }
}

std::string message_with_fix(std::string_view what, std::string_view fix) {
  std::string s = printable(what);
  if (!fix.empty()) (s += kFixLine) += printable(fix);
  return s;
}

SourcePosition position_at(const std::string& file, std::string_view text, std::size_t offset) {
  const std::size_t newline = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(line_start), '\n') + 1;
  return {file, static_cast<int>(line), static_cast<int>(offset - line_start) + 1};
}

std::string SourcePosition::str() const {
  if (file.empty()) return {};
  std::string s = file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

UsageError::UsageError(const std::string& what, std::string fix, SourcePosition where)
    : std::runtime_error(printable(what)), fix_(printable(fix)), where_(std::move(where)) {
  where_.file = printable(where_.file);
}

std::string UsageError::message() const {
  std::string s;
  const std::string place = where_.str();
  if (!place.empty()) s += place + ": ";
  s += what();
  if (!fix_.empty()) s += "\n  fix: " + fix_;
  return s;
}

RuntimeFailure::RuntimeFailure(std::string call, const std::string& detail)
    : std::runtime_error(printable(detail)), call_(printable(call)) {}

std::string RuntimeFailure::message(int rank, const std::string& host) const {
  return call_ + " failed on rank " + std::to_string(rank) + " (" + host + "): " + what();
}

}  // namespace ncclsweep
