#pragma once
// `ncclsweep sizes` output: a terminal table, YAML (a `sizes:` block a sweep file
// accepts, origins as comments) or JSON (everything, for tools).
#include <string>

#include "workload/comm_use.hpp"

namespace ncclsweep {

enum class SizesFormat { table, yaml, json };
SizesFormat parse_sizes_format(const std::string& text);  // throws UsageError

std::string format_sizes(const CommProfile& profile, SizesFormat format);

}  // namespace ncclsweep
