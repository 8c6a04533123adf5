#include "report/doctor_report.hpp"

#include <nlohmann/json.hpp>

namespace ncclsweep {

void print_doctor_report(const doctor::DoctorReport& report, TableOrJson format, std::ostream& out) {
  if (format == TableOrJson::json) {
    int errors = 0, warnings = 0;
    for (const doctor::Finding& f : report.findings) {
      errors += f.severity == doctor::Severity::error;
      warnings += f.severity == doctor::Severity::warning;
    }
    const nlohmann::json doc{
        {"errors", errors}, {"warnings", warnings}, {"findings", report.findings}, {"ranks", report.ranks}};
    out << doc.dump(2) << "\n";
  } else {
    out << "# ncclsweep doctor: " << report.ranks.size() << " rank(s)\n" << doctor::findings_table(report.findings);
  }
  out.flush();
}

}  // namespace ncclsweep
