#pragma once
// The --format of `report` and `compare`: one enum from the flag to every printer, so
// each view says which formats it has with values, not by comparing text.
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "core/name_table.hpp"

namespace ncclsweep {

enum class ReportFormat { table, md, csv, json, svg, prom };
inline constexpr NameTable<ReportFormat, 6> kReportFormatNames{"--format",
                                                               {{{ReportFormat::table, "table"},
                                                                 {ReportFormat::md, "md"},
                                                                 {ReportFormat::csv, "csv"},
                                                                 {ReportFormat::json, "json"},
                                                                 {ReportFormat::svg, "svg"},
                                                                 {ReportFormat::prom, "prom"}}}};
inline std::string_view name_of(ReportFormat format) { return kReportFormatNames.name(format); }

// "table, md, csv or json": the formats a view has, for its messages.
std::string format_choices(std::span<const ReportFormat> formats);

// The error for a format a view does not have: "a sweep report has no --format svg", and
// the ones it has. `view` names what was asked for ("a sweep report").
UsageError unsupported_format(ReportFormat format, std::string_view view, std::span<const ReportFormat> supported);
inline UsageError unsupported_format(ReportFormat format, std::string_view view,
                                     std::initializer_list<ReportFormat> supported) {
  return unsupported_format(format, view, std::span<const ReportFormat>(supported.begin(), supported.size()));
}

}  // namespace ncclsweep
