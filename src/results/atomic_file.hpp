#pragma once
// A file that readers watch while it is written, replaced whole at once (run.json, a
// metrics file a node_exporter reads). records.jsonl, which grows by whole synced lines,
// has its own writer (results/results_directory.hpp).
#include <filesystem>
#include <string>

namespace ncclsweep {

// Writes `text` to `path` through `path`.tmp, fsync and rename, so a reader never sees
// half a file: on failure the previous `path` stays and the temporary file is removed.
// Throws RuntimeFailure naming the path and what was kept.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace ncclsweep
