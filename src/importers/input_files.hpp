#pragma once
// Finding and reading the files an importer is given: a glob(3) pattern (no shell),
// plain or gzip-compressed text.
#include <string>
#include <vector>

namespace ncclsweep {

// Files matching `pattern`, sorted; a pattern without wildcards names one file.
// Throws UsageError when nothing matches.
std::vector<std::string> expand_pattern(const std::string& pattern, const std::string& what);

// The whole file, decompressed when it is gzip; plain files are read as they are.
// Throws UsageError naming the file when it cannot be read or is truncated.
std::string read_text_file(const std::string& path);

}  // namespace ncclsweep
