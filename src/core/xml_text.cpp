#include "core/xml_text.hpp"

#include "core/utf8.hpp"

namespace ncclsweep {

std::string xml_escape(std::string_view text) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    // The well-formed prefix, escaped; then one bad byte replaced.
    const std::size_t valid = first_invalid_utf8(text).value_or(text.size());
    for (const char c : text.substr(0, valid)) {
      const auto byte = static_cast<unsigned char>(c);
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
          if ((byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7f) {
            out += kReplacement;
          } else {
            out += c;
          }
      }
    }
    if (valid == text.size()) break;
    out += kReplacement;
    text.remove_prefix(valid + 1);
  }
  return out;
}

}  // namespace ncclsweep
