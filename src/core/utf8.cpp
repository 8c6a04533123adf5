#include "core/utf8.hpp"

#include <cstdio>

namespace ncclsweep {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when none starts there.
// Overlong forms, surrogates and code points past U+10FFFF are invalid (RFC 3629).
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) return 1;
  std::size_t extra = 0;
  unsigned char low = 0x80, high = 0xbf;  // the allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    extra = 1;
  } else if (c >= 0xe0 && c <= 0xef) {
    extra = 2;
    if (c == 0xe0) low = 0xa0;   // no overlong three-byte forms
    if (c == 0xed) high = 0x9f;  // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    extra = 3;
    if (c == 0xf0) low = 0x90;   // no overlong four-byte forms
    if (c == 0xf4) high = 0x8f;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (extra > text.size() - i - 1) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k <= extra; ++k) {
    if ((byte(k) >> 6) != 0x2) return 0;
  }
  return extra + 1;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_invalid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(text[i]));
      out += hex;
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace ncclsweep
