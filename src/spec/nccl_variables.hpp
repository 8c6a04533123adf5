#pragma once
// The NCCL environment variables ncclsweep knows, and whether a change between two
// communicator inits in one process reaches NCCL (docs/nccl-settings.md), and
// what values NCCL accepts for each (spec/value_kind.hpp).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spec/value_kind.hpp"

namespace ncclsweep {

enum class VariableKind {
  reread_each_init,  // read with ncclGetEnv at every init: re-init in process sees a change
  process_cached,    // cached (NCCL_PARAM static, read once): needs a fresh process
};

struct NcclVariable {
  std::string_view name;  // "NCCL_PROTO"
  VariableKind kind;
  std::string_view description;
  ValueKind value;  // what NCCL accepts
};

// Every documented variable plus those NCCL 2.28 reads; sorted by name.
std::span<const NcclVariable> nccl_variables();

// nullptr when the name is not in the table.
const NcclVariable* find_nccl_variable(std::string_view name);

// Unknown variables are process_cached: the safe assumption. The testing aid's variables
// (core/test_slowdown.hpp) are of the kind their family names.
VariableKind variable_kind(std::string_view name);

std::vector<std::string> nccl_variable_names();

std::string_view name_of(VariableKind kind);

}  // namespace ncclsweep
