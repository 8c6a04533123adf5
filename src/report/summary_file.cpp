#include "report/summary_file.hpp"

#include <cstring>
#include <sstream>

#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "report/printers.hpp"
#include "report/sweep_report.hpp"

namespace ncclsweep {
namespace {

class SummaryFile final : public ResultSink {
 public:
  explicit SummaryFile(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void row(std::span<const MeasurementRecord>) override {}
  void checkpoint(const RunDocument& run, int) noexcept override {
    try {
      (void)replace_file(dir_ / kSummaryFileName, summary_markdown(run));
    } catch (...) {  // the run's own end reports what fails
    }
  }
  void finish(const RunDocument& run) override {
    const auto path = dir_ / kSummaryFileName;
    // Mid-run (a full disk, a directory gone): a runtime failure, not bad input. Through a
    // fresh file renamed into place, so a link planted as summary.md is replaced, not followed.
    if (const int error = replace_file(path, summary_markdown(run)); error != 0) {
      throw RuntimeFailure("writing " + path.string() + ".tmp", std::strerror(error) +
                                                               std::string(" (run.json and records.jsonl hold the run)"));
    }
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
