#include "engine/mpi/mpi_fabric.hpp"

#include <new>
#include <string>

#include "core/errors.hpp"
#include "core/stall_watch.hpp"
#include "core/units.hpp"
#include "engine/mpi/mpi_check.hpp"

namespace ncclsweep {
namespace {

// MPI's own types for the dtypes it can reduce; MPI_DATATYPE_NULL for the rest.
MPI_Datatype reducible_type(const DataType& t) {
  switch (t.nccl_id) {
    case kNcclInt8: return MPI_INT8_T;
    case kNcclUint8: return MPI_UINT8_T;
    case kNcclInt32: return MPI_INT32_T;
    case kNcclUint32: return MPI_UINT32_T;
    case kNcclInt64: return MPI_INT64_T;
    case kNcclUint64: return MPI_UINT64_T;
    case kNcclFloat32: return MPI_FLOAT;
    case kNcclFloat64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::min: return MPI_MIN;
    default: return MPI_OP_NULL;
  }
}

int as_int_count(std::uint64_t n) {
  if (n > static_cast<std::uint64_t>(INT32_MAX)) {
    throw UsageError("the mpi engine cannot pass " + std::to_string(n) + " elements in one call (MPI counts are int)",
                     "use sizes below 2 GiB per rank with the mpi engine");
  }
  return static_cast<int>(n);
}

// Exactly `bytes`, a fresh allocation when the size changes (the footprint is measured).
// A failed allocation names the size and the fix; the rank is added where it is printed.
void allocate(std::vector<std::byte>& buffer, std::size_t bytes) {
  if (bytes == 0 || buffer.size() == bytes) return;
  buffer = {};  // the old buffer goes first: both at once may not fit
  try {
    buffer = std::vector<std::byte>(bytes);
  } catch (const std::bad_alloc&) {
    throw RuntimeFailure("host buffer allocation", "could not allocate " + format_bytes(bytes) +
                                                       " (fix: measure smaller sizes, use buffer_footprint: exact, or "
                                                       "run fewer ranks per host)");
  }
}

class MpiFabric final : public HostFabric {
 public:
  MpiFabric(MPI_Comm comm, StallWatch* watch) : comm_(comm), watch_(watch) {
    check_mpi(MPI_Comm_rank(comm_, &world_.rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm_, &world_.ranks), "MPI_Comm_size");
  }
  ~MpiFabric() override { free_splits(); }

  Place place(int comm) const override {
    if (comm == 0) return world_;
    return groups_.at(checked(comm)).second;
  }

  void split(const std::vector<int>& colors) override {
    free_splits();
    for (const int color : colors) {
      MPI_Comm group = MPI_COMM_NULL;
      const StallWatch::Scope watched(watch_, "MPI_Comm_split");
      check_mpi(MPI_Comm_split(comm_, color, world_.rank, &group), "MPI_Comm_split");
      Place p;
      MPI_Comm_rank(group, &p.rank);
      MPI_Comm_size(group, &p.ranks);
      groups_.emplace_back(group, p);
    }
  }

  void free_splits() override {
    for (auto& [group, place] : groups_) MPI_Comm_free(&group);
    groups_.clear();
  }

  void barrier() override {
    const StallWatch::Scope watched(watch_, "MPI_Barrier");
    check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
  }

  HostBuffers buffers(std::size_t send_bytes, std::size_t recv_bytes) override {
    allocate(send_, send_bytes);
    allocate(recv_, recv_bytes);
    return {send_.data(), recv_.data()};
  }

  void collective(const CollectiveCall& call, std::byte* send_buffer, std::byte* recv) override {
    const MPI_Comm comm = call.comm == 0 ? comm_ : groups_.at(checked(call.comm)).first;
    const Place v = place(call.comm);
    const bool in_place = call.placement == Placement::in_place;
    const MPI_Datatype reduce_type = reducible_type(*call.dtype);
    const int count = as_int_count(call.count);
    const int bytes = as_int_count(call.count * call.dtype->bytes);
    void* send = in_place ? MPI_IN_PLACE : static_cast<void*>(send_buffer);
    const StallWatch::Scope watched(watch_, call.kind->name.data());
    switch (call.kind->layout) {
      case OutputLayout::gathered:
        check_mpi(MPI_Allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm), "MPI_Allgather");
        break;
      case OutputLayout::reduced_slice:
        check_mpi(MPI_Reduce_scatter_block(send, recv, count, reduce_type, mpi_op(call.op), comm),
                  "MPI_Reduce_scatter_block");
        break;
      case OutputLayout::reduced_whole:
        check_mpi(MPI_Allreduce(send, recv, count, reduce_type, mpi_op(call.op), comm), "MPI_Allreduce");
        break;
      case OutputLayout::reduced_at_root: {
        // MPI_IN_PLACE is the root's alone; other ranks pass their input as usual.
        void* reduce_send = in_place && v.rank != call.root ? static_cast<void*>(recv) : send;
        check_mpi(MPI_Reduce(reduce_send, recv, count, reduce_type, mpi_op(call.op), call.root, comm), "MPI_Reduce");
        break;
      }
      case OutputLayout::from_root: {
        std::byte* buffer = (!in_place && v.rank == call.root) ? send_buffer : recv;
        check_mpi(MPI_Bcast(buffer, bytes, MPI_BYTE, call.root, comm), "MPI_Bcast");
        break;
      }
      case OutputLayout::transposed:
        check_mpi(MPI_Alltoall(send_buffer, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm), "MPI_Alltoall");
        break;
      case OutputLayout::from_previous: {
        const int next = (v.rank + 1) % v.ranks, previous = (v.rank + v.ranks - 1) % v.ranks;
        check_mpi(MPI_Sendrecv(send_buffer, bytes, MPI_BYTE, next, 0, recv, bytes, MPI_BYTE, previous, 0, comm,
                               MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        break;
      }
    }
  }

 private:
  std::size_t checked(int comm) const {
    if (comm < 0 || static_cast<std::size_t>(comm) > groups_.size()) {
      throw UsageError("internal: call on sub-communicator " + std::to_string(comm) + " before split");
    }
    return static_cast<std::size_t>(comm) - 1;
  }

  MPI_Comm comm_;
  StallWatch* watch_;  // null: nothing watched
  Place world_;
  std::vector<std::pair<MPI_Comm, Place>> groups_;  // from split()
  std::vector<std::byte> send_, recv_;
};

}  // namespace

std::unique_ptr<HostFabric> make_mpi_fabric(MPI_Comm comm, StallWatch* watch) {
  return std::make_unique<MpiFabric>(comm, watch);
}

}  // namespace ncclsweep
