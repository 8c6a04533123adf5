#include "engine/mpi/mpi_check.hpp"

#include <string>

#include "core/errors.hpp"

namespace ncclsweep {

void check_mpi(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw RuntimeFailure(call, std::string(text, static_cast<std::size_t>(length)));
}

}  // namespace ncclsweep
