#pragma once
// Finding and reading the files an importer is given: a glob(3) pattern (no shell),
// plain or gzip-compressed text, opened through core's InputFile (regular files only)
// and never inflated past the cap of a job log or trace.
#include <functional>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "core/input_file.hpp"

namespace ncclsweep {

// Files matching `pattern`, sorted; a pattern without wildcards names one file.
// Throws UsageError when nothing matches.
std::vector<std::string> expand_pattern(const std::string& pattern, const std::string& what);

// A regular file's text as a stream, decompressed when it is gzip (plain files pass
// unchanged). Throws UsageError naming the file when it is not a regular file, is
// truncated or damaged, or yields more than its cap (input_cap: kind.max_bytes unless raised).
class TextInputBuffer : public std::streambuf {
 public:
  TextInputBuffer(const std::string& path, InputKind kind);
  ~TextInputBuffer() override;
  const std::string& path() const { return path_; }

 protected:
  int_type underflow() override;

 private:
  std::string path_;
  InputKind kind_;
  void* gz_ = nullptr;  // gzFile
  std::uint64_t produced_ = 0;
  std::uint64_t cap_ = 0;  // the most it inflates to (core/input_file.hpp, input_cap)
  char buffer_[1 << 16];
};

// The whole file, decompressed when it is gzip.
std::string read_text_file(const std::string& path, InputKind kind = kJobLogInput);

// Each line (without its newline) and its 1-based number, streamed: memory stays one
// chunk and one line, whatever the file's size. A line longer than `max_line` bytes is
// refused with its number.
void for_each_text_line(const std::string& path, InputKind kind,
                        const std::function<void(std::string_view line, int number)>& each,
                        std::size_t max_line = 1 << 20);

}  // namespace ncclsweep
