#pragma once
// The results directory of one run (docs/results.md): run.json, rewritten atomically
// at the start (status "incomplete") and at the end, and records.jsonl, one record
// appended and synced as each measurement completes, so a killed run keeps them.
#include <filesystem>
#include <memory>
#include <string>

#include "results/result_sink.hpp"
#include "results/results_lock.hpp"
#include "spec/run_name.hpp"

namespace ncclsweep {

// results/<name>/<UTC timestamp>/ below `root`; throws UsageError for an unsafe name.
std::filesystem::path default_results_dir(const std::filesystem::path& root, const std::string& name,
                                          const std::string& utc_timestamp);

// Creates `dir` (and parents) and takes its lock (results/results_lock.hpp) for the
// process running `command`; `note` (when given) gets what taking the lock found. Throws
// UsageError when it cannot be created, another process writes it, or it already holds a
// run. Before each append it checks that records.jsonl is still where it was created (a
// directory removed or moved mid-run is a RuntimeFailure saying so). A run that ends
// before its run.json was first written (refused) removes what it created, so the same
// directory can be given again.
std::unique_ptr<ResultSink> make_results_directory(const std::filesystem::path& dir, const std::string& command = "ncclsweep",
                                                   std::string* note = nullptr);

// Reopens the directory of an earlier run for --resume, under `lock` (taken before the
// earlier records were read): run.json must be there, and records.jsonl is cut back to its
// first `keep_bytes` (its complete lines) before appending.
std::unique_ptr<ResultSink> resume_results_directory(const std::filesystem::path& dir, std::uintmax_t keep_bytes,
                                                     std::unique_ptr<ResultsLock> lock);

// Every name a run writes in `dir`: one planted there as a symbolic link (or as something
// other than a file) throws UsageError naming it, before anything is read or written.
void refuse_planted_results_links(const std::filesystem::path& dir);

// Reads DIR/run.json (or a run.json path). Throws UsageError for a missing, empty,
// malformed or newer-schema file.
RunDocument read_run_document(const std::filesystem::path& path);

}  // namespace ncclsweep
