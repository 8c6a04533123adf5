#include "core/environment.hpp"

#include <algorithm>
#include <cstdio>

namespace ncclsweep {
namespace {

// Length of the valid UTF-8 sequence at the start of `text`; 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  std::size_t length = 0;
  unsigned minimum = 0;  // the smallest code point that needs this many bytes (no overlong forms)
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) length = 2, minimum = 0x80;
  else if ((lead >> 4) == 0xe) length = 3, minimum = 0x800;
  else if ((lead >> 3) == 0x1e) length = 4, minimum = 0x10000;
  else return 0;
  if (text.size() < length) return 0;
  unsigned code = lead & (0x7f >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if ((c >> 6) != 0x2) return 0;
    code = (code << 6) | (c & 0x3f);
  }
  if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

}  // namespace

std::string escape_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(text[0]));
      out += escaped;
      text.remove_prefix(1);
    } else {
      out += text.substr(0, length);
      text.remove_prefix(length);
    }
  }
  return out;
}

OwnedEnvironment::OwnedEnvironment(char** envp) {
  for (char** e = envp; e && *e; ++e) entries_.emplace_back(*e);
  pointers_.reserve(entries_.size() + 1);
  for (std::string& entry : entries_) pointers_.push_back(entry.data());
  pointers_.push_back(nullptr);
}

std::map<std::string, std::string> environment_map(char** envp) {
  std::map<std::string, std::string> out;
  for (char** e = envp; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos) out.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return out;
}

std::map<std::string, std::string> environment_with_prefixes(char** envp,
                                                             std::initializer_list<std::string_view> prefixes) {
  std::map<std::string, std::string> out = environment_map(envp);
  std::erase_if(out, [&](const auto& entry) {
    return std::none_of(prefixes.begin(), prefixes.end(),
                        [&](std::string_view p) { return std::string_view(entry.first).substr(0, p.size()) == p; });
  });
  // These subsets are recorded (run.json, doctor's facts), and JSON holds only UTF-8.
  std::map<std::string, std::string> recordable;
  for (const auto& [name, value] : out) recordable.emplace(escape_invalid_utf8(name), escape_invalid_utf8(value));
  return recordable;
}

}  // namespace ncclsweep
