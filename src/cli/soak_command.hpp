#pragma once
// `ncclsweep soak` (docs/soak.md); registered by main like the commands of command.hpp.
#include "cli/command.hpp"

namespace ncclsweep {

void add_soak_command(CLI::App& app, CommandAction& chosen);

}  // namespace ncclsweep
