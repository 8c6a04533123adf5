#include "results/atomic_file.hpp"

#include <cstring>

#include "core/errors.hpp"
#include "core/output_file.hpp"

namespace ncclsweep {

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  // One writer for whole files (core/output_file): a fresh O_EXCL temporary renamed into
  // place, so a planted link at `path` or its temporary is never written through.
  if (const int error = replace_file(path, text); error != 0) {
    throw RuntimeFailure("writing " + path.string(),
                         std::string(std::strerror(error)) + "; " +
                             (std::filesystem::exists(path) ? "the previous " + path.filename().string() + " is kept"
                                                            : "it was not written"));
  }
}

}  // namespace ncclsweep
