#include "transport/relay_reducer.hpp"

#include "engine/mpi/mpi_check.hpp"

namespace ncclsweep {
namespace {

void combine(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* from = static_cast<const RelayStep*>(in);
  auto* into = static_cast<RelayStep*>(inout);
  for (int i = 0; i < *len; ++i) combine_steps(from[i], into[i]);
}

}  // namespace

RelayReducer::RelayReducer(MPI_Comm comm) : comm_(comm) {
  check_mpi(MPI_Type_contiguous(sizeof(RelayStep), MPI_BYTE, &type_), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  check_mpi(MPI_Op_create(&combine, /*commute=*/1, &op_), "MPI_Op_create");
}

RelayReducer::~RelayReducer() {
  if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

RelayStep RelayReducer::all_reduce(const RelayStep& mine) {
  RelayStep result;
  check_mpi(MPI_Allreduce(&mine, &result, 1, type_, op_, comm_), "MPI_Allreduce");
  return result;
}

}  // namespace ncclsweep
