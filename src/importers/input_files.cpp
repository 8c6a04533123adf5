#include "importers/input_files.hpp"

#include <glob.h>
#include <unistd.h>
#include <zlib.h>

#include "core/errors.hpp"
#include "core/file_descriptor.hpp"

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

TextInputBuffer::TextInputBuffer(const std::string& path, InputKind kind) : path_(path), kind_(kind) {
  const InputFile file(path, kind);  // the regular-file and size checks, before zlib reads
  cap_ = file.cap();
  FileDescriptor copy(::dup(file.descriptor()));
  if (!copy.is_open()) throw UsageError("cannot open " + path, "check the file", {path});
  gz_ = gzdopen(copy.get(), "rb");  // reads plain files unchanged, so one path serves both
  if (gz_ == nullptr) throw UsageError("cannot open " + path, "check the file", {path});
  copy.release();  // the gzFile closes it
  setg(buffer_, buffer_, buffer_);
}

TextInputBuffer::~TextInputBuffer() {
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
}

TextInputBuffer::int_type TextInputBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const auto file = static_cast<gzFile>(gz_);
  const int got = gzread(file, buffer_, sizeof buffer_);
  int error = Z_OK;
  const char* message = gzerror(file, &error);
  if (got < 0 || (error != Z_OK && error != Z_STREAM_END)) {
    throw UsageError("cannot read '" + path_ + "': " + message + " (truncated or damaged gzip?)", "copy the file again",
                     {path_});
  }
  if (got == 0) return traits_type::eof();
  produced_ += static_cast<std::uint64_t>(got);
  if (produced_ > cap_) throw_input_too_large(path_, kind_, gzdirect(file) == 0);
  setg(buffer_, buffer_, buffer_ + got);
  return traits_type::to_int_type(*gptr());
}

std::string read_text_file(const std::string& path, InputKind kind) {
  TextInputBuffer in(path, kind);
  std::string text;
  while (in.sgetc() != std::char_traits<char>::eof()) {
    const std::streamsize available = in.in_avail();
    const std::size_t old = text.size();
    text.resize(old + static_cast<std::size_t>(available));
    in.sgetn(text.data() + old, available);
  }
  return text;
}

void for_each_text_line(const std::string& path, InputKind kind,
                        const std::function<void(std::string_view line, int number)>& each, std::size_t max_line) {
  TextInputBuffer in(path, kind);
  std::string line;
  int number = 0;
  for (;;) {
    const auto c = in.sbumpc();
    if (c == std::char_traits<char>::eof() || c == '\n') {
      if (c == std::char_traits<char>::eof() && line.empty()) return;
      each(line, ++number);
      line.clear();
      if (c == std::char_traits<char>::eof()) return;
      continue;
    }
    if (line.size() == max_line) {
      throw UsageError("line " + std::to_string(number + 1) + " is longer than " + std::to_string(max_line) +
                           " bytes: not a log this reader knows",
                       "pass the job's log files themselves", {path, number + 1});
    }
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace ncclsweep
