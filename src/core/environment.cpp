#include "core/environment.hpp"

#include <algorithm>

namespace ncclsweep {

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
  return out;
}

}  // namespace ncclsweep
