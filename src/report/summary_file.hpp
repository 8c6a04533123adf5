#pragma once
// summary.md in a results directory: the Markdown report of the run with a fixed row
// order, 3 significant digits and no volatile fields (times, hosts and pids stay in
// run.json), so a committed run shows a readable line diff in code review.
#include <filesystem>
#include <memory>

#include "results/result_sink.hpp"

namespace ncclsweep {

inline constexpr const char* kSummaryFileName = "summary.md";

// Writes DIR/summary.md when the run finishes.
std::unique_ptr<ResultSink> make_summary_file(const std::filesystem::path& dir);

// The summary text for a run (also what `ncclsweep report DIR --format md` prints).
std::string summary_markdown(const RunDocument& run);

}  // namespace ncclsweep
