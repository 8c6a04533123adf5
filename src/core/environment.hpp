#pragma once
// A process environment (envp-style array) as a map, and the subsets that matter here.
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

namespace ncclsweep {

std::map<std::string, std::string> environment_map(char** envp);

// The variables whose names start with one of `prefixes` (an exact name is a prefix too).
std::map<std::string, std::string> environment_with_prefixes(char** envp,
                                                             std::initializer_list<std::string_view> prefixes);

}  // namespace ncclsweep
