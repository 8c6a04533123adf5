#include "results/results_directory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "core/errors.hpp"
#include "results/record_json.hpp"

namespace ncclsweep {
namespace {

namespace fs = std::filesystem;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_file(const fs::path& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode));
  if (!f) throw UsageError("cannot write " + path.string(), "choose a writable results directory with -o DIR");
  return f;
}

// Writes `text` to `path` through a temporary file and a rename, so a reader never
// sees half a file.
void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp";
  {
    File f = open_file(temporary, "w");
    std::fwrite(text.data(), 1, text.size(), f.get());
    std::fflush(f.get());
    fsync(fileno(f.get()));
  }
  fs::rename(temporary, path);
}

class ResultsDirectory final : public ResultSink {
 public:
  explicit ResultsDirectory(fs::path dir) : dir_(std::move(dir)) {
    create();
    records_ = open_file(dir_ / "records.jsonl", "a");
  }

  // --resume: the run.json is there; records.jsonl is cut back to its complete lines.
  ResultsDirectory(fs::path dir, std::uintmax_t keep_bytes) : dir_(std::move(dir)) {
    if (!fs::exists(dir_ / "run.json")) {
      throw UsageError("cannot resume " + dir_.string() + ": it holds no run.json",
                       "give the results directory of an earlier ncclsweep run");
    }
    std::error_code ec;
    if (fs::exists(dir_ / "records.jsonl")) fs::resize_file(dir_ / "records.jsonl", keep_bytes, ec);
    if (ec) throw UsageError("cannot cut back " + (dir_ / "records.jsonl").string() + ": " + ec.message(),
                             "check the directory's permissions");
    records_ = open_file(dir_ / "records.jsonl", "a");
  }

 private:
  void create() {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) {
      throw UsageError("cannot create results directory " + dir_.string() + ": " + ec.message(),
                       "choose a writable results directory with -o DIR");
    }
    if (fs::exists(dir_ / "run.json")) {
      throw UsageError("results directory " + dir_.string() + " already holds a run",
                       "choose a new directory with -o DIR, leave -o out for a timestamped one, or --resume DIR");
    }
  }

 public:

  void begin(const RunDocument& run) override { write_atomically(dir_ / "run.json", nlohmann::json(run).dump(2) + "\n"); }

  void row(std::span<const MeasurementRecord> placements) override {
    for (const auto& record : placements) {
      const std::string line = nlohmann::json(record).dump() + "\n";
      std::fwrite(line.data(), 1, line.size(), records_.get());
    }
    std::fflush(records_.get());
    fsync(fileno(records_.get()));
  }

  void finish(const RunDocument& run) override {
    write_atomically(dir_ / "run.json", nlohmann::json(run).dump(2) + "\n");
  }

 private:
  fs::path dir_;
  File records_;
};

}  // namespace

fs::path default_results_dir(const fs::path& root, const std::string& name, const std::string& utc_timestamp) {
  if (const std::string reason = unsafe_run_name_reason(name); !reason.empty()) {
    throw UsageError(reason + " (it names a directory under the results root)",
                     "use letters, digits, '-', '_' and '.', e.g. --name nvls-sweep");
  }
  return root / name / utc_timestamp;
}

std::unique_ptr<ResultSink> make_results_directory(const fs::path& dir) { return std::make_unique<ResultsDirectory>(dir); }

std::unique_ptr<ResultSink> resume_results_directory(const fs::path& dir, std::uintmax_t keep_bytes) {
  return std::make_unique<ResultsDirectory>(dir, keep_bytes);
}

RunDocument read_run_document(const fs::path& path) {
  const fs::path file = fs::is_directory(path) ? path / "run.json" : path;
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string(), "give a results directory holding run.json");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers past any type (out_of_range)
    throw UsageError(file.string() + " is not valid JSON: " + e.what(), "give an ncclsweep run.json");
  }
  try {
    return j.get<RunDocument>();
  } catch (const UsageError& e) {
    throw UsageError(file.string() + ": " + e.what(), e.fix());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + " is not an ncclsweep run.json: " + e.what(), "give an ncclsweep run.json");
  }
}

}  // namespace ncclsweep
