#pragma once
// The results directory of one run (docs/results.md): run.json, rewritten atomically
// at the start (status "incomplete") and at the end, and records.jsonl, one record
// appended and synced as each measurement completes, so a killed run keeps them; and
// records.jsonl's writer, which locate and soak append with too.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/file_descriptor.hpp"

#include "results/result_sink.hpp"
#include "results/results_lock.hpp"
#include "spec/run_name.hpp"

namespace ncclsweep {

// records.jsonl of a results directory, the one writer of it for run, locate and soak:
// lines appended whole and synced as they are measured, so a killed launch or a full
// disk leaves every complete line and never a torn one.
class RecordsJournal {
 public:
  // A new records.jsonl in `dir`; refused (UsageError) when one is there or the name is a
  // link. `after_failure` ends a failed write's message: what the user does next
  // ("make space, then go on with --resume DIR").
  static RecordsJournal create(const std::filesystem::path& dir, std::string after_failure);
  // An earlier launch's records.jsonl, cut back to its first `keep_bytes` (its complete lines).
  static RecordsJournal resume(const std::filesystem::path& dir, std::uintmax_t keep_bytes, std::string after_failure);

  // Appends `lines` (each ending in '\n') whole or not at all, then syncs them. A write
  // that fails part way is cut back to the last complete line; throws RuntimeFailure
  // naming the file, the error and what was kept. Refuses to write into a file that was
  // removed or moved away meanwhile (nobody would find what it holds).
  void append(std::string_view lines);
  // Each value's JSON on its own line, in one append.
  template <class Range>
  void append_values(const Range& values) {
    std::string lines;
    for (const auto& value : values) lines += nlohmann::json(value).dump() + "\n";
    append(lines);
  }

  const std::filesystem::path& path() const { return path_; }
  std::uint64_t complete_bytes() const { return complete_bytes_; }
  std::uint64_t appends() const { return appends_; }  // by this process
  // The file is no longer at its path: removed, or its directory moved or replaced.
  bool gone() const;
  // Throws RuntimeFailure saying so when it is gone: a launch must not measure on into a
  // file nobody can find, nor ever say its records are where they are not.
  void refuse_if_gone() const;
  // Closes and removes the file when nothing was ever appended to it (a refused launch
  // leaves its directory as it found it).
  void remove_if_unused();

 private:
  RecordsJournal(std::filesystem::path path, int extra_open_flags, std::string after_failure);

  std::filesystem::path path_;
  FileDescriptor file_;
  std::string after_failure_;
  std::uint64_t complete_bytes_ = 0;  // the file's length up to its last complete line
  std::uint64_t appends_ = 0;
  std::optional<std::uint64_t> write_budget_;  // the testing aid's bytes left (docs/reliability.md)
};


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
