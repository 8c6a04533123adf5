#include "core/errors.hpp"

#include <cstdio>

#include "core/environment.hpp"

namespace ncclsweep {
namespace {

// A message as a terminal can show it whole: a NUL would end it (what() is a C string)
// and an escape sequence from a hostile file would reach the terminal. Control
// characters other than newline and tab, and bytes that are not UTF-8, become \xNN.
std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
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
