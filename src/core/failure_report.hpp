#pragma once
// What an exception that reached the top of ncclsweep means for the user: the exit
// status and one line saying what failed. Pure: printing it, and ending the other MPI
// ranks, is runtime/uncaught_failure's job.
#include <exception>
#include <string>

namespace ncclsweep {

struct FailureReport {
  int status = 0;       // kExitUsage for bad input (UsageError), kExitRuntime for anything else
  std::string message;  // "what failed: why"; a UsageError's may add a "fix:" line
};

// Every kind reaches one form: UsageError, RuntimeFailure, file system errors (with
// their paths), JSON errors, std::bad_alloc, any other std::exception, and anything
// else thrown.
FailureReport describe_failure(std::exception_ptr error);

// Writes `line` (a newline added) to stderr in one write, after what stdout holds: under
// mpirun both streams of a rank reach the same log, and a message written in pieces
// while a table row was half out came back with the row inside it.
void print_error_line(const std::string& line);

// Every error ncclsweep prints, in its one spelling: "ncclsweep: error: MESSAGE", and,
// from one rank of several, "ncclsweep: error on rank R (HOST): MESSAGE" (HOST may be empty).
void print_error(const std::string& message);
void print_rank_error(int rank, const std::string& host, const std::string& message);

}  // namespace ncclsweep
