#pragma once
// MPI calls return their errors (the session sets MPI_ERRORS_RETURN); this turns one
// into a RuntimeFailure for the mpi engine and the runtime alike.
#include <mpi.h>

namespace ncclsweep {

// Throws RuntimeFailure naming `call` when an MPI call did not return MPI_SUCCESS.
void check_mpi(int status, const char* call);

}  // namespace ncclsweep
