#pragma once
// JSON forms shared by the report and comparison JSON printers.
#include <nlohmann/json.hpp>

#include "compare/acceptance_gate.hpp"
#include "compare/side.hpp"

namespace ncclsweep {

nlohmann::json identity_json(const SideIdentity& id);
nlohmann::json row_json(const SideRow& row);
// The acceptance gate: every figure its line prints, and its notes.
nlohmann::json acceptance_json(const AcceptanceGate& gate);

}  // namespace ncclsweep
