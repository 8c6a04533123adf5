#pragma once
// printf formatting into a std::string sized to fit, for the tables whose column
// widths are printf's (nccl-tests' layout): the text is what printf would print, with
// no fixed buffer to outgrow. (GCC 12 has no <format>.)
#include <string>

namespace ncclsweep {

std::string printf_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ncclsweep
