#pragma once
// One `ncclsweep report INPUT...`: each input read as what it is (a soak's, a locate's or
// a sweep's results directory, any run, nccl-tests output) and printed in the chosen
// format; several overlaid in one SVG or printed in turn.
#include <iosfwd>
#include <string>
#include <vector>

#include "core/name_table.hpp"
#include "inspect/output_target.hpp"
#include "report/node_report.hpp"

namespace ncclsweep {

// --nodes and --compute: a view printed after a table or md report where the run has
// one (automatic), as the whole report in any format (only), or never (off).
enum class ExtraView { automatic, only, off };
inline constexpr NameTable<ExtraView, 3> kExtraViewNames{
    "view", {{{ExtraView::automatic, "auto"}, {ExtraView::only, "only"}, {ExtraView::off, "off"}}}};

struct ReportFlags {
  std::vector<std::string> inputs;
  OutputTarget output;
  bool to_terminal = false;                 // `out` is a terminal (colour)
  ExtraView nodes = ExtraView::automatic;   // docs/scale.md, "Per-node view"
  double slow_threshold = kSlowShare;
  ExtraView compute = ExtraView::automatic;  // docs/overlap.md
};

// Renders the whole report before writing it (a bad input never leaves half a report in
// -o), into -o or `out`; returns kExitOk. Throws UsageError for bad input.
int run_report_command(const ReportFlags& flags, std::ostream& out);

}  // namespace ncclsweep
