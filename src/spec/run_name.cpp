#include "spec/run_name.hpp"

#include "core/utf8.hpp"

namespace ncclsweep {

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
  // Run names end up in JSON, which must be UTF-8 (nlohmann refuses to write anything else).
  if (first_invalid_utf8(name)) return "the run name is not valid UTF-8";
  return "";
}

}  // namespace ncclsweep
