#pragma once
// Where `report` and `compare` print (stdout or -o FILE) and in which style: colour only
// for a terminal table, and the link peak of the GPU a one-host run measured.
#include <functional>
#include <iosfwd>
#include <string>

#include "compare/side.hpp"
#include "core/report_format.hpp"
#include "report/printers.hpp"

namespace ncclsweep {

struct OutputTarget {
  ReportFormat format = ReportFormat::table;
  std::string path;         // -o; empty: the stream the command was given
  std::string systems_dir;  // the system link peaks (resolved by the CLI)
};

// Colour for a table on a terminal (`to_terminal`), never with NO_COLOR set (no-color.org);
// a link peak when the side ran within one host on a GPU the systems directory knows.
PrintStyle style_for(const OutputTarget& target, const SideIdentity& id, bool to_terminal);

// `print` into target.path, or into `out` when there is none. Throws UsageError naming
// the path when it cannot be written.
void write_output(const OutputTarget& target, std::ostream& out, const std::function<void(std::ostream&)>& print);

}  // namespace ncclsweep
