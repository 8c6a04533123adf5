#include "importers/input_files.hpp"

#include <glob.h>
#include <zlib.h>

#include <memory>

#include "core/errors.hpp"

namespace ncclsweep {

std::vector<std::string> expand_pattern(const std::string& pattern, const std::string& what) {
  glob_t found{};
  const int status = glob(pattern.c_str(), GLOB_ERR, nullptr, &found);
  std::vector<std::string> files;
  if (status == 0) files.assign(found.gl_pathv, found.gl_pathv + found.gl_pathc);
  globfree(&found);
  if (files.empty()) {
    throw UsageError("no file matches '" + pattern + "' (" + what + ")",
                     "check the path; quote the pattern so that ncclsweep, not the shell, expands it");
  }
  return files;  // glob sorts its matches
}

std::string read_text_file(const std::string& path) {
  // gzread reads plain files unchanged, so one path serves both.
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw UsageError("cannot open '" + path + "'", "check the path and its permissions", {path});
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const int got = gzread(file.get(), buffer, sizeof buffer);
    if (got < 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (got < static_cast<int>(sizeof buffer)) break;
  }
  int error = Z_OK;
  const char* message = gzerror(file.get(), &error);
  if (error != Z_OK && error != Z_STREAM_END) {
    throw UsageError(std::string("cannot read '") + path + "': " + message + " (truncated or damaged gzip?)",
                     "copy the file again", {path});
  }
  return text;
}

}  // namespace ncclsweep
