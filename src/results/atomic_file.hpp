#pragma once
// Files that readers watch while they are written: a whole file replaced at once
// (run.json, a metrics file a node_exporter reads), and a log that only grows by whole
// synced lines (records.jsonl).
#include <filesystem>
#include <string>

namespace ncclsweep {

// Writes `text` to `path` through `path`.tmp, fsync and rename, so a reader never sees
// half a file: on failure the previous `path` stays and the temporary file is removed.
// Throws RuntimeFailure naming the path and what was kept.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// Appends `lines` (whole lines) to `path` and syncs them; a write that fails part way
// is cut back to the file's previous end. Throws RuntimeFailure.
void append_synced(const std::filesystem::path& path, const std::string& lines);

}  // namespace ncclsweep
