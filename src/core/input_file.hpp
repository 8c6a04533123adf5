#pragma once
// Every file ncclsweep reads as input is opened here. Only a regular file on an ordinary
// file system is read (the user's own path and its links are followed), so a FIFO, a
// device, a socket, a directory or a file of /proc, /sys and the kernel's other file
// systems is refused before a byte is read, and never more is read than the cap of
// what the reader can hold: a hostile or mistaken input ends in a UsageError, never
// in a hang or a machine's worth of memory.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/file_descriptor.hpp"

namespace ncclsweep {

inline constexpr std::uint64_t kMebibyte = std::uint64_t{1} << 20;

// What an input is and the most a reader of it holds (the cap's reason: docs/reliability.md).
struct InputKind {
  std::string_view what;    // "sweep file", named in messages
  std::uint64_t max_bytes;  // refused past this, compressed or not
};
inline constexpr InputKind kSettingsFileInput{"sweep or settings file", 16 * kMebibyte};  // YAML, env, rules
inline constexpr InputKind kResultsFileInput{"results file", 1024 * kMebibyte};        // run.json, records.jsonl, tables
inline constexpr InputKind kJobLogInput{"job log or trace", 2048 * kMebibyte};         // NCCL logs, torch traces

// The cap a reader of `kind` applies: kind.max_bytes, or more where the user raised it for
// a real input that large (`--max-input-size SIZE` on any command, which sets
// NCCLSWEEP_MAX_INPUT_SIZE for the process and its ranks). Never below kind.max_bytes.
// Throws UsageError when NCCLSWEEP_MAX_INPUT_SIZE is not a size.
std::uint64_t input_cap(InputKind kind);
inline constexpr const char* kMaxInputSizeVariable = "NCCLSWEEP_MAX_INPUT_SIZE";

// An open regular file; closes itself.
class InputFile {
 public:
  // Throws UsageError naming `path` when it cannot be opened or is not a regular file.
  InputFile(const std::string& path, InputKind kind);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int descriptor() const { return file_.get(); }
  const std::string& path() const { return path_; }
  std::uint64_t size() const { return size_; }  // at open; a growing file is still capped
  const InputKind& kind() const { return kind_; }
  std::uint64_t cap() const { return cap_; }  // input_cap(kind) at open: what a reader may take

  // Up to `max` bytes into `buffer`; 0 at the end. Throws UsageError on a read error.
  std::size_t read_some(char* buffer, std::size_t max);
  // As read_some, from byte `offset` (for a file another process appends to).
  std::size_t read_at(char* buffer, std::size_t max, std::uint64_t offset);

 private:
  FileDescriptor file_{-1};
  std::string path_;
  std::uint64_t size_ = 0;
  InputKind kind_;
  std::uint64_t cap_ = 0;
};

// The UsageError for an input past its cap (read or inflated), with the fix.
[[noreturn]] void throw_input_too_large(const std::string& path, InputKind kind, bool inflated);

// The whole regular file at `path`, refused past kind.max_bytes.
std::string read_input_file(const std::string& path, InputKind kind);

// Whether `path` names an existing file of any type, without following a final link
// (a dangling link exists). For "is it there?" before opening with the checks above.
bool input_path_exists(const std::string& path);

}  // namespace ncclsweep
