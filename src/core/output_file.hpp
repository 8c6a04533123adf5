#pragma once
// Writing files where others can plant links (a results directory on a shared file
// system): nothing is ever written through a symbolic link. A file is replaced whole
// through a fresh temporary (O_EXCL | O_NOFOLLOW) renamed into place, or appended to
// with O_NOFOLLOW; a planted link is refused with the path that holds it.
#include <filesystem>
#include <initializer_list>
#include <string_view>

namespace ncclsweep {

// Opens `path` with `flags` | O_NOFOLLOW | O_CLOEXEC; the descriptor, or -1 with errno set
// (ELOOP for a symbolic link).
int open_no_follow(const std::filesystem::path& path, int flags, int mode = 0644);

// Every byte of `text` to `fd`, through short writes and EINTR; 0 or the errno that stopped it.
int write_all(int fd, std::string_view text);

// Replaces `path` by `text`: PATH.tmp is created fresh (a stale one, or a link planted
// under that name, is removed first, never followed), synced, and renamed over `path`
// (which replaces a link there rather than writing through it). 0, or the errno that failed;
// on failure `path` is as it was and no PATH.tmp is left.
int replace_file(const std::filesystem::path& path, std::string_view text);

// Writes `text` to the user's own output path (`report -o FILE`, `--svg FILE`: links
// followed, as the user named them; a device such as /dev/stdout works): created or
// truncated, every byte written, synced where the file can be, closed. Throws
// RuntimeFailure ("writing PATH", the system's reason, exit 3) when any of it fails, so a
// full disk or /dev/full never ends as success with the output lost.
void write_output_file(const std::filesystem::path& path, std::string_view text);

// For an output a launch writes only at its end (`locate --svg FILE`): throws UsageError
// naming `flag` when `path` cannot be opened for writing, so that a bad path is refused
// before anything is measured. The file is left as it was (one this check created is
// removed again).
void check_output_file(const std::filesystem::path& path, std::string_view flag);

// Throws UsageError naming the first of `names` under `dir` that is a symbolic link,
// or that is not a regular file (directories: not a directory) where one is expected.
void refuse_planted_links(const std::filesystem::path& dir, std::initializer_list<std::string_view> files,
                          std::initializer_list<std::string_view> directories = {});

}  // namespace ncclsweep
