#include "report/summary_file.hpp"

#include <fstream>
#include <sstream>

#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "report/printers.hpp"
#include "report/sweep_report.hpp"

namespace ncclsweep {
namespace {

class SummaryFile final : public ResultSink {
 public:
  explicit SummaryFile(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void row(std::span<const MeasurementRecord>) override {}
  void finish(const RunDocument& run) override {
    const auto path = dir_ / kSummaryFileName;
    std::ofstream out(path);
    out << summary_markdown(run);
    // Mid-run (a full disk, a directory gone): a runtime failure, not bad input.
    if (!out) throw RuntimeFailure("writing " + path.string(), "the stream failed (a full disk or a directory gone?)");
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace

std::unique_ptr<ResultSink> make_summary_file(const std::filesystem::path& dir) {
  return std::make_unique<SummaryFile>(dir);
}

std::string summary_markdown(const RunDocument& run) {
  if (run.records.empty()) return "### " + run.name + ": no measurements\n";
  std::ostringstream text;
  print_side_markdown(side_from_run(run, ""), PrintStyle{}, text);
  return text.str() + iteration_summary_markdown(run, run.baseline);
}

}  // namespace ncclsweep
