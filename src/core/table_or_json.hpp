#pragma once
// The --format of the commands that print either a readable table or one JSON document
// on stdout (plan, doctor, locate, soak).
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

enum class TableOrJson { table, json };
inline constexpr NameTable<TableOrJson, 2> kTableOrJsonNames{
    "--format", {{{TableOrJson::table, "table"}, {TableOrJson::json, "json"}}}};

}  // namespace ncclsweep
