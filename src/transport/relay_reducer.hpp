#pragma once
// The MPI side of RelayStep: one MPI_Allreduce with a user-defined operation.
#include <mpi.h>

#include "transport/relay_step.hpp"

namespace ncclsweep {

class RelayReducer {
 public:
  explicit RelayReducer(MPI_Comm comm);
  ~RelayReducer();
  RelayReducer(const RelayReducer&) = delete;
  RelayReducer& operator=(const RelayReducer&) = delete;

  RelayStep all_reduce(const RelayStep& mine);

 private:
  MPI_Comm comm_;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

}  // namespace ncclsweep
