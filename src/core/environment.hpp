#pragma once
// A process environment (envp-style array) as a map, and the subsets that matter here.
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

// The process's environment as it was when captured, owned: main captures it first thing,
// before MPI_Init or anything else calls setenv(), which reallocates `environ` and frees
// the array main's envp may point to (a preloaded library that calls setenv() before main
// makes envp that heap array). Everything that reads "the environment the run started
// with" reads this copy.
class OwnedEnvironment {
 public:
  explicit OwnedEnvironment(char** envp);
  OwnedEnvironment(const OwnedEnvironment&) = delete;
  OwnedEnvironment& operator=(const OwnedEnvironment&) = delete;
  // NAME=VALUE entries and a terminating null, valid while this object lives.
  char** envp() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

// Exactly as the process has it (for the environment of a child process).
std::map<std::string, std::string> environment_map(char** envp);

// `text` unchanged when it is valid UTF-8; otherwise each byte outside a valid sequence
// becomes the four characters \xNN, so JSON can hold it and a reader sees the bytes.
std::string escape_invalid_utf8(std::string_view text);

// The variables whose names start with one of `prefixes` (an exact name is a prefix too),
// for recording: names and values escaped by escape_invalid_utf8.
std::map<std::string, std::string> environment_with_prefixes(char** envp,
                                                             std::initializer_list<std::string_view> prefixes);

}  // namespace ncclsweep
