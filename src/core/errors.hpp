#pragma once
// The two kinds of failure ncclsweep reports, each carrying enough context to be
// printed once, in main, with the right exit status.
#include <stdexcept>
#include <string>
#include <string_view>

namespace ncclsweep {

// Exit statuses, documented in README.md.
enum ExitStatus : int {
  kExitOk = 0,
  kExitRegression = 1,  // compare: a row below the threshold, or the acceptance gate's FAIL
  kExitFindings = 1,    // doctor: an error-level finding
  kExitUsage = 2,       // bad input: command line, sweep file, results file
  kExitRuntime = 3,     // CUDA, NCCL or MPI failed
  kExitUnresolved = 5,  // compare: the acceptance gate cannot decide within the noise (UNRESOLVED)
};

// Where in an input file a problem is; line and column are 1-based, 0 = unknown.
struct SourcePosition {
  std::string file;
  int line = 0;
  int column = 0;
  std::string str() const;  // "file:line:column", shortened when parts are unknown
};

// The line and column of byte `offset` of `text`, a file's contents.
SourcePosition position_at(const std::string& file, std::string_view text, std::size_t offset);

// Every message ncclsweep prints is one line, or one line and its fix line ("WHAT\n  fix:
// FIX"): `message` with each control character but that structure's newline, and each byte
// that is not UTF-8, shown as \xNN (a tab stays). The printers (print_error, the run's log
// lines) pass what they print through it.
std::string printable_message(std::string_view message);
// "WHAT\n  fix: FIX" (just WHAT when FIX is empty), each piece escaped as above, so text
// from input can never add a line of its own.
std::string message_with_fix(std::string_view what, std::string_view fix);

// Bad input: the user can fix it. Carries an optional place and a suggested fix.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what, std::string fix = {}, SourcePosition where = {});
  const std::string& fix() const { return fix_; }
  const SourcePosition& where() const { return where_; }
  std::string message() const;  // "file:line:col: what\n  fix: ..."

 private:
  std::string fix_;
  SourcePosition where_;
};

// A CUDA, NCCL or MPI call failed. Names the call, and the rank and host that saw it.
class RuntimeFailure : public std::runtime_error {
 public:
  RuntimeFailure(std::string call, const std::string& detail);
  const std::string& call() const { return call_; }
  std::string message(int rank, const std::string& host) const;

 private:
  std::string call_;
};

}  // namespace ncclsweep
