#pragma once
// `ncclsweep diagnose`'s result in each of its formats: the terminal table, Markdown (for
// a ticket), JSON (docs/diagnose.md has the schema) and an SVG of the gap by layer.
#include <ostream>
#include <vector>

#include "compare/diagnosis.hpp"
#include "core/report_format.hpp"

namespace ncclsweep {

inline constexpr ReportFormat kDiagnoseFormats[] = {ReportFormat::table, ReportFormat::md, ReportFormat::json,
                                                    ReportFormat::svg};

// Throws UsageError (unsupported_format) for csv and prom, before writing anything.
void check_diagnosis_format(ReportFormat format);

// "10m 0s (preflight 5s, platform 12s, hosts and links 40s, collectives 9m 3s)"
std::string budget_text(double budget_s, const std::vector<PhaseTime>& phases);
std::string budget_text(const Diagnosis& d);

void print_diagnosis(const Diagnosis& d, ReportFormat format, std::ostream& out);

// Throws UsageError for a format diagnose --plan does not print (svg, csv, prom).
void check_diagnose_plan_format(ReportFormat format);

// `diagnose --plan`: the budget by phase and what each phase will measure; json as
// docs/diagnose.md gives it, every other format the text (svg refused).
void print_diagnose_plan(const DiagnosePlan& plan, ReportFormat format, std::ostream& out);

}  // namespace ncclsweep
