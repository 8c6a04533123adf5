#pragma once
// UTF-8 checks for text that ends up in JSON: nlohmann_json refuses to write invalid
// UTF-8 (it throws), and an environment variable or a file name may hold any bytes.
#include <string>
#include <string_view>

namespace ncclsweep {

bool is_valid_utf8(std::string_view text);

// `text` unchanged when it is valid UTF-8; otherwise each byte that is not part of a
// valid sequence becomes the four characters \xNN, so the value can be recorded and a
// reader still sees which bytes it held. Backslashes already in the text are kept as
// they are: the escaped form is for reading, not for setting the value again.
std::string escape_invalid_utf8(std::string_view text);

}  // namespace ncclsweep
