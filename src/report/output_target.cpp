#include "report/output_target.hpp"

#include <cstdlib>
#include <ostream>
#include <sstream>

#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "report/system_links.hpp"

namespace ncclsweep {

PrintStyle style_for(const OutputTarget& target, const SideIdentity& id, bool to_terminal) {
  PrintStyle style;
  const char* no_colour = std::getenv("NO_COLOR");
  style.colour = target.format == ReportFormat::table && target.path.empty() && to_terminal && (!no_colour || !*no_colour);
  // A link peak bounds busbw only within one node; across nodes the network does.
  if (id.hosts <= 1) {
    if (const auto link = find_system_link(target.systems_dir, id.gpu)) {
      style.link_peak_gbps = link->peak_gbps;
      style.link_name = link->name;
    }
  }
  return style;
}

void write_output(const OutputTarget& target, std::ostream& out, const std::function<void(std::ostream&)>& print) {
  if (target.path.empty()) {
    print(out);
    out.flush();
    return;
  }
  std::ostringstream text;
  print(text);
  write_output_file(target.path, text.str());
}

}  // namespace ncclsweep
