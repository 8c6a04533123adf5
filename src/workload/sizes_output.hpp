#pragma once
// `ncclsweep sizes` output: a terminal table, YAML (a `sizes:` block a sweep file
// accepts, origins as comments) or JSON (everything, for tools).
#include <string>

#include "core/name_table.hpp"
#include "workload/comm_use.hpp"

namespace ncclsweep {

enum class SizesFormat { table, yaml, json };
inline constexpr NameTable<SizesFormat, 3> kSizesFormatNames{
    "--format", {{{SizesFormat::table, "table"}, {SizesFormat::yaml, "yaml"}, {SizesFormat::json, "json"}}}};

std::string format_sizes(const CommProfile& profile, SizesFormat format);

}  // namespace ncclsweep
