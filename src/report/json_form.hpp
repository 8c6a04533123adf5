#pragma once
// JSON forms shared by the report and comparison JSON printers.
#include <nlohmann/json.hpp>

#include "compare/side.hpp"

namespace ncclsweep {

nlohmann::json identity_json(const SideIdentity& id);
nlohmann::json row_json(const SideRow& row);

}  // namespace ncclsweep
