// Tells the three inputs apart by content and refuses what none of them can read.
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep {
namespace {

namespace fs = std::filesystem;

const char* const kWhatWorks =
    "give an ncclsweep results directory (or its run.json), nccl-tests text output, or an nccl-tests -J file";

// Through the one input opener: a FIFO, device or socket is refused before a byte is read.
std::string read_text(const fs::path& path) { return read_input_file(path.string(), kResultsFileInput); }

bool looks_binary(const std::string& text) {
  const std::size_t probe = std::min<std::size_t>(text.size(), 4096);
  return std::find(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(probe), '\0') !=
         text.begin() + static_cast<std::ptrdiff_t>(probe);
}

}  // namespace

Side load_side(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(path.string() + " does not exist", kWhatWorks);
  if (fs::is_directory(path, ec)) {
    if (!fs::exists(path / "run.json")) {
      throw UsageError(path.string() + " is a directory without run.json", "give an ncclsweep results directory");
    }
    return side_from_run(read_run_document(path), path.string());
  }
  const std::string text = read_text(path);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw UsageError(path.string() + " is empty", kWhatWorks);
  if (looks_binary(text)) throw UsageError(path.string() + " is a binary file", kWhatWorks);
  // A UTF-8 byte order mark before the first character is no part of it.
  const std::size_t first = text.find_first_not_of(" \t\r\n", text.starts_with("\xEF\xBB\xBF") ? 3 : 0);
  if (first != std::string::npos && text[first] == '{') {
    // A JSON document: ours carries "schema_version", nccl-tests' -J "version".
    const bool ours = text.find("\"schema_version\"") != std::string::npos;
    if (ours) return side_from_run(read_run_document(path), path.string());
    return side_from_nccl_tests_json(text, path.string());
  }
  return side_from_nccl_tests_text(text, path.string());
}

}  // namespace ncclsweep
