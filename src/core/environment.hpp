#pragma once
// A process environment (envp-style array) as a map, and the subsets that matter here.
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

namespace ncclsweep {

// Exactly as the process has it (for the environment of a child process).
std::map<std::string, std::string> environment_map(char** envp);

// `text` unchanged when it is valid UTF-8; otherwise each byte outside a valid sequence
// becomes the four characters \xNN, so JSON can hold it and a reader sees the bytes.
std::string escape_invalid_utf8(std::string_view text);

// The variables whose names start with one of `prefixes` (an exact name is a prefix too),
// for recording: names and values escaped by escape_invalid_utf8.
std::map<std::string, std::string> environment_with_prefixes(char** envp,
                                                             std::initializer_list<std::string_view> prefixes);

}  // namespace ncclsweep
