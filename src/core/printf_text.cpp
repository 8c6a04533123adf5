#include "core/printf_text.hpp"

#include <cstdarg>
#include <cstdio>

namespace ncclsweep {

std::string printf_text(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list measure;
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  std::string text;
  if (length > 0) {
    text.resize(static_cast<std::size_t>(length));
    // C++17 and later: writing the terminating NUL at data()[size()] is allowed.
    std::vsnprintf(text.data(), text.size() + 1, format, args);
  }
  va_end(args);
  return text;
}

}  // namespace ncclsweep
