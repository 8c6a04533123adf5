#include "core/errors.hpp"

namespace ncclsweep {

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
    : std::runtime_error(what), fix_(std::move(fix)), where_(std::move(where)) {}

std::string UsageError::message() const {
  std::string s;
  const std::string place = where_.str();
  if (!place.empty()) s += place + ": ";
  s += what();
  if (!fix_.empty()) s += "\n  fix: " + fix_;
  return s;
}

RuntimeFailure::RuntimeFailure(std::string call, const std::string& detail)
    : std::runtime_error(detail), call_(std::move(call)) {}

std::string RuntimeFailure::message(int rank, const std::string& host) const {
  return call_ + " failed on rank " + std::to_string(rank) + " (" + host + "): " + what();
}

}  // namespace ncclsweep
