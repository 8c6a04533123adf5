#include "results/results_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>
#include <utility>

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/output_file.hpp"
#include "core/utf8.hpp"
#include "results/record_json.hpp"
#include "results/results_lock.hpp"
#include "results/resume.hpp"

namespace ncclsweep {

namespace fs = std::filesystem;

namespace {

// Testing aid (docs/reliability.md): NCCLSWEEP_INJECT_WRITE_FAILURE_AFTER=N makes the
// writes to records.jsonl fail with ENOSPC once N bytes have been written, the last one
// cut short as a full disk cuts it. Shows a full disk where no small one can be mounted.
std::optional<std::uint64_t> injected_write_budget() {
  const char* text = std::getenv("NCCLSWEEP_INJECT_WRITE_FAILURE_AFTER");
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const unsigned long long bytes = std::strtoull(text, &end, 10);
  if (*end != '\0') {
    throw UsageError(std::string("NCCLSWEEP_INJECT_WRITE_FAILURE_AFTER='") + text + "' is not a byte count",
                     "give a whole number of bytes, or unset it");
  }
  return bytes;
}

}  // namespace

RecordsJournal::RecordsJournal(fs::path path, int extra_open_flags, std::string after_failure)
    : path_(std::move(path)),
      file_(open_no_follow(path_, O_WRONLY | O_CREAT | O_APPEND | extra_open_flags)),
      after_failure_(std::move(after_failure)),
      write_budget_(injected_write_budget()) {
  if (!file_.is_open()) {
    const int error = errno;
    if (error == EEXIST) {
      throw UsageError(path_.parent_path().string() + " already holds a records.jsonl",
                       "choose a new results directory with -o DIR", {path_.string()});
    }
    throw UsageError("cannot write " + path_.string() + ": " +
                         (error == ELOOP ? std::string("it is a symbolic link") : std::string(std::strerror(error))),
                     error == ELOOP ? "remove the link; ncclsweep writes only files it creates itself"
                                    : "choose a writable results directory with -o DIR",
                     {path_.string()});
  }
  struct stat status {};
  if (::fstat(file_.get(), &status) == 0) complete_bytes_ = static_cast<std::uint64_t>(status.st_size);
}

RecordsJournal RecordsJournal::create(const fs::path& dir, std::string after_failure) {
  return RecordsJournal(dir / "records.jsonl", O_EXCL, std::move(after_failure));
}

RecordsJournal RecordsJournal::resume(const fs::path& dir, std::uintmax_t keep_bytes, std::string after_failure) {
  RecordsJournal journal(dir / "records.jsonl", 0, std::move(after_failure));
  if (::ftruncate(journal.file_.get(), static_cast<off_t>(keep_bytes)) != 0) {
    throw UsageError("cannot cut back " + journal.path_.string() + ": " + std::strerror(errno),
                     "check the directory's permissions");
  }
  journal.complete_bytes_ = keep_bytes;
  return journal;
}

bool RecordsJournal::gone() const {
  struct stat opened {}, named {};
  if (::fstat(file_.get(), &opened) != 0 || opened.st_nlink == 0) return true;
  return ::stat(path_.c_str(), &named) != 0 || named.st_dev != opened.st_dev || named.st_ino != opened.st_ino;
}

void RecordsJournal::refuse_if_gone() const {
  if (!gone()) return;
  throw RuntimeFailure("writing " + path_.string(),
                       "the results directory " + path_.parent_path().string() +
                           " was removed or moved during the run, so nothing more can be recorded there; the " +
                           std::to_string(appends_) +
                           " write(s) of records before went with the file (not at this path any more); run again "
                           "with a new -o DIR");
}

void RecordsJournal::append(std::string_view lines) {
  refuse_if_gone();
  // The testing aid cuts the write where its budget ends, as a full disk would.
  const std::size_t allowed = write_budget_ ? std::min<std::uint64_t>(lines.size(), *write_budget_) : lines.size();
  int error = write_all(file_.get(), lines.substr(0, allowed));
  if (write_budget_) *write_budget_ -= allowed;
  if (error == 0 && allowed < lines.size()) error = ENOSPC;
  if (error == 0 && ::fsync(file_.get()) != 0) error = errno;
  if (error != 0) {
    const bool cut = ::ftruncate(file_.get(), static_cast<off_t>(complete_bytes_)) == 0;
    throw RuntimeFailure("writing " + path_.string(),
                         std::string(std::strerror(error)) + "; every complete record before it is kept" +
                             (cut ? "" : " (the partial last line could not be cut off; readers skip it)") +
                             (after_failure_.empty() ? "" : "; " + after_failure_));
  }
  complete_bytes_ += lines.size();
  ++appends_;
}

void RecordsJournal::remove_if_unused() {
  if (appends_ > 0 || !file_.is_open()) return;
  struct stat status {};
  if (::fstat(file_.get(), &status) == 0 && status.st_size == 0 && !gone()) ::unlink(path_.c_str());
  file_ = FileDescriptor(-1);
}

namespace {

std::string errno_text(int error) { return std::strerror(error); }

RuntimeFailure write_failure(const fs::path& path, int error, const std::string& kept) {
  return RuntimeFailure("writing " + path.string(), errno_text(error) + "; " + kept);
}

std::string resume_advice(const fs::path& dir) { return "make space, then go on with --resume " + dir.string(); }

class ResultsDirectory final : public ResultSink {
 public:
  ResultsDirectory(fs::path dir, const std::string& command, std::string* note) : dir_(std::move(dir)), fresh_(true) {
    create(command, note);
    records_.emplace(RecordsJournal::create(dir_, resume_advice(dir_)));
  }

  // --resume: the run.json is there; records.jsonl is cut back to its complete lines.
  ResultsDirectory(fs::path dir, std::uintmax_t keep_bytes, std::unique_ptr<ResultsLock> lock)
      : lock_(std::move(lock)), dir_(std::move(dir)) {
    refuse_planted_results_links(dir_);
    if (!fs::exists(dir_ / "run.json")) {
      throw UsageError("cannot resume " + dir_.string() + ": it holds no run.json",
                       "give the results directory of an earlier ncclsweep run");
    }
    records_.emplace(RecordsJournal::resume(dir_, keep_bytes, resume_advice(dir_)));
  }

  // A fresh run that never started (refused before run.json was written, so nothing was
  // measured) leaves the directory as it found it: -o DIR works again once the cause is fixed.
  ~ResultsDirectory() override {
    if (!fresh_ || begun_ || !records_ || records_->appends() > 0) return;
    records_->remove_if_unused();
    records_.reset();
    lock_.reset();
    if (created_) {
      std::error_code ignored;
      fs::remove(dir_ / "nccl-logs", ignored);  // only when empty
      fs::remove(dir_, ignored);                // only when empty: nothing of anyone else's goes
    }
  }

 private:
  void create(const std::string& command, std::string* note) {
    std::error_code ec;
    created_ = !fs::exists(dir_, ec);
    fs::create_directories(dir_, ec);
    if (ec) {
      throw UsageError("cannot create results directory " + dir_.string() + ": " + ec.message(),
                       "choose a writable results directory with -o DIR");
    }
    refuse_planted_results_links(dir_);
    lock_ = ResultsLock::take(dir_, command);
    if (note) *note = lock_->note();
    if (fs::exists(dir_ / "run.json") || fs::exists(dir_ / "records.jsonl")) {
      throw UsageError("results directory " + dir_.string() + " already holds a run",
                       "choose a new directory with -o DIR, leave -o out for a timestamped one, or --resume DIR");
    }
  }

 public:

  void begin(const RunDocument& run) override {
    write_atomically(dir_ / "run.json", nlohmann::json(run).dump(2) + "\n", false);
    begun_ = true;
  }

  // One row's records (its placements) are appended whole or not at all: a write that
  // fails part way is cut back, so the file always ends after a complete record.
  void row(std::span<const MeasurementRecord> placements) override { records_->append_values(placements); }

  void finish(const RunDocument& run) override {
    write_atomically(dir_ / "run.json", nlohmann::json(run).dump(2) + "\n", true);
  }

  void checkpoint(const RunDocument& run, int signal) noexcept override {
    if (lock_) lock_->mark_stopping(signal);  // a killed run's lock, which another host may then take
    try {
      if (!records_->gone()) write_atomically(dir_ / "run.json", nlohmann::json(run).dump(2) + "\n", false);
    } catch (...) {  // the run's own end reports what fails; here there is nobody to tell
    }
  }

 private:
  // Writes `text` to `path` through a fresh temporary file and a rename, so a reader
  // never sees half a file and no planted link is followed: when anything fails, the
  // previous `path` stays as it was.
  // `last`: the run's closing run.json, after which --resume completes the run.
  void write_atomically(const fs::path& path, const std::string& text, bool last) {
    if (const int error = replace_file(path, text); error != 0) {
      records_->refuse_if_gone();
      const std::string kept =
          fs::exists(path) ? "the previous " + path.filename().string() + " is kept" : "it was not written";
      throw write_failure(path.string(), error,
                          kept + (last ? "; every record measured is in " + (dir_ / "records.jsonl").string() +
                                             ": free space, then go on with --resume " + dir_.string()
                                       : std::string()));
    }
  }

  std::unique_ptr<ResultsLock> lock_;  // first in, last out: held while anything here is written
  fs::path dir_;
  bool fresh_ = false;    // a new run's directory (not --resume)
  bool created_ = false;  // this run created the directory itself
  bool begun_ = false;    // run.json was written: the run started
  std::optional<RecordsJournal> records_;
};

}  // namespace

void refuse_planted_results_links(const fs::path& dir) {
  refuse_planted_links(dir, {"run.json", "run.json.tmp", "records.jsonl", "summary.md", "summary.md.tmp", kResultsLockName},
                       {"nccl-logs"});
}

fs::path default_results_dir(const fs::path& root, const std::string& name, const std::string& utc_timestamp) {
  if (const std::string reason = unsafe_run_name_reason(name); !reason.empty()) {
    throw UsageError(reason + " (it names a directory under the results root)",
                     "use letters, digits, '-', '_' and '.', e.g. --name nvls-sweep");
  }
  return root / name / utc_timestamp;
}

std::unique_ptr<ResultSink> make_results_directory(const fs::path& dir, const std::string& command, std::string* note) {
  return std::make_unique<ResultsDirectory>(dir, command, note);
}

std::unique_ptr<ResultSink> resume_results_directory(const fs::path& dir, std::uintmax_t keep_bytes,
                                                     std::unique_ptr<ResultsLock> lock) {
  return std::make_unique<ResultsDirectory>(dir, keep_bytes, std::move(lock));
}

RunDocument read_run_document(const fs::path& path) {
  const fs::path file = fs::is_directory(path) ? path / "run.json" : path;
  if (!input_path_exists(file.string())) {
    throw UsageError("cannot read " + file.string() + ": it does not exist", "give a results directory holding run.json");
  }
  nlohmann::json j;
  try {
    j = parse_json_input(read_input_file(file.string(), kResultsFileInput), {file.string()},
                         max_json_values(kResultsFileInput));
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers past any type (out_of_range)
    throw UsageError(file.string() + " is not valid JSON: " + e.what(), "give an ncclsweep run.json");
  }
  try {
    RunDocument document = j.get<RunDocument>();
    // A killed run's run.json holds no records yet: its rows are in records.jsonl.
    const fs::path records = file.parent_path() / "records.jsonl";
    if (document.status == RunStatus::incomplete && document.records.empty() && input_path_exists(records.string())) {
      document.records = read_recorded_measurements(records).records;
      document.notes.push_back("the run is incomplete (killed, or still running): these are the " +
                               std::to_string(document.records.size()) + " records its records.jsonl holds so far");
    }
    return document;
  } catch (const UsageError& e) {
    if (!e.where().file.empty()) throw;  // it names its own file and line (records.jsonl's)
    throw UsageError(file.string() + ": " + e.what(), e.fix());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + " is not an ncclsweep run.json: " + e.what(), "give an ncclsweep run.json");
  }
}

}  // namespace ncclsweep
