#include "spec/run_name.hpp"

namespace ncclsweep {
namespace {

// Run names end up in JSON, which must be UTF-8 (nlohmann refuses to write anything else).
bool is_valid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;  // continuation bytes after the lead byte
    if (c >= 0x80) {
      if ((c >> 5) == 0x6) extra = 1;
      else if ((c >> 4) == 0xe) extra = 2;
      else if ((c >> 3) == 0x1e) extra = 3;
      else return false;
    }
    if (extra > text.size() - i - 1) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

std::string unsafe_run_name_reason(const std::string& name) {
  if (name.empty()) return "the run name is empty";
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos) {
    return "the run name '" + name + "' holds a path separator";
  }
  if (name.front() == '.') return "the run name '" + name + "' starts with a dot";
  for (const unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return "the run name holds a control character";
  }
  if (name.size() > 200) return "the run name is longer than 200 bytes";
  if (!is_valid_utf8(name)) return "the run name is not valid UTF-8";
  return "";
}

}  // namespace ncclsweep
