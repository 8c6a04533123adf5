#pragma once
// Side readers: each turns one kind of input (a run.json, nccl-tests text or JSON) into
// a normalised Side. They throw UsageError (exit 2) naming the file, the line where one is known, and the fix.
#include <filesystem>
#include <string>

#include "compare/side.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// An ncclsweep run (run.json already read).
Side side_from_run(const RunDocument& run, const std::string& path);

// nccl-tests' text output (stdout of any *_perf binary; several tests may follow each
// other in one file). `text` is the whole file.
Side side_from_nccl_tests_text(const std::string& text, const std::string& path);

// nccl-tests' -J output, schema version 3. `text` is the whole file.
Side side_from_nccl_tests_json(const std::string& text, const std::string& path);

// Any of the above, told apart by content: a directory or a JSON document with
// "schema_version" is an ncclsweep run; JSON with "version" is nccl-tests -J; other
// text is an nccl-tests table. Missing, empty and binary files are refused.
Side load_side(const std::filesystem::path& path);

}  // namespace ncclsweep
