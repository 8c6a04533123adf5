#include "runtime/uncaught_failure.hpp"

#include <mpi.h>

#include <string>

#include "core/failure_report.hpp"

namespace ncclsweep {

int exit_for_uncaught(std::exception_ptr error) {
  const FailureReport report = describe_failure(error);
  // MpiSession leaves MPI initialised when an exception unwinds through it, for this.
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  const bool mpi_up = initialised && !finalised;
  int rank = 0, ranks = 1;
  if (mpi_up) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(host, &length);
    print_rank_error(rank, host, report.message);
  } else {
    print_error(report.message);
  }
  if (mpi_up && ranks > 1) MPI_Abort(MPI_COMM_WORLD, report.status);  // ends every rank; does not return
  if (mpi_up) MPI_Finalize();  // alone: nobody to wait for
  return report.status;
}

}  // namespace ncclsweep
