#pragma once
// UTF-8 validity: sweep files, command-line values and run names end up in JSON
// (nlohmann refuses to write anything else) and in the environment of every rank.
#include <cstddef>
#include <optional>
#include <string_view>

namespace ncclsweep {

// The offset of the first byte that does not belong to well-formed UTF-8 (a stray
// continuation byte, a truncated sequence, an overlong form, a surrogate, a code point
// past U+10FFFF), or nullopt when the whole text is valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace ncclsweep
