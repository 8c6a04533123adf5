#pragma once
// `ncclsweep doctor`'s report: the findings as a table, or one JSON document with the
// counts, the findings and every rank's facts (docs/doctor.md).
#include <ostream>

#include "core/table_or_json.hpp"
#include "doctor/checks.hpp"

namespace ncclsweep {

void print_doctor_report(const doctor::DoctorReport& report, TableOrJson format, std::ostream& out);

}  // namespace ncclsweep
