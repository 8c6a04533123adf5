#pragma once
// The one place where an exception that reached main ends ncclsweep: a one-line
// error naming the rank and host, the exit status (2 bad input, 3 anything else), and,
// when MPI runs across several ranks, MPI_Abort: this rank cannot know whether the
// others wait for it in a collective, and a rank that only exits leaves them waiting
// until the job's time limit.
#include <exception>

namespace ncclsweep {

// Prints the error and returns the exit status; does not return when MPI is
// initialised with more than one rank (every rank is ended with that status).
int exit_for_uncaught(std::exception_ptr error);

}  // namespace ncclsweep
