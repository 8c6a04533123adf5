#include "processes/worker_data_plane.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/errors.hpp"
#include "engine/mpi/mpi_check.hpp"
#include "engine/mpi/mpi_fabric.hpp"

namespace ncclsweep {
namespace {

// Returns once every rank's worker asked for the same operation, without spinning: MPI
// spins in a blocking collective, and where a host has fewer cores than ranks and
// workers, a rank spinning for the others takes the core a worker needs to ask.
void arrive(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

class MpiDataPlane final : public WorkerDataPlane {
 public:
  explicit MpiDataPlane(MPI_Comm comm) : comm_(comm), fabric_(make_mpi_fabric(comm)) {
    fd_ = memfd_create("ncclsweep-worker-buffers", MFD_CLOEXEC);
    if (fd_ < 0) throw RuntimeFailure("memfd_create", std::strerror(errno));
  }
  ~MpiDataPlane() override {
    if (base_) munmap(base_, mapped_);
    close(fd_);
  }
  MpiDataPlane(const MpiDataPlane&) = delete;
  MpiDataPlane& operator=(const MpiDataPlane&) = delete;

  int region_fd() const override { return fd_; }

  FabricReply serve(const FabricRequest& request) override {
    FabricReply reply;
    switch (request.op) {
      case FabricOp::barrier: arrive(comm_); break;
      case FabricOp::free_splits: fabric_->free_splits(); break;
      case FabricOp::split:
        fabric_->split(request.colors);
        for (std::size_t i = 0; i < request.colors.size(); ++i) reply.places.push_back(fabric_->place(static_cast<int>(i) + 1));
        break;
      case FabricOp::collective: {
        map(request.region_bytes);
        if (request.send_offset > mapped_ || request.recv_offset > mapped_) {
          throw RuntimeFailure("relayed collective", "a buffer outside the worker's shared region");
        }
        arrive(comm_);  // every rank runs each call, on its own sub-communicator
        fabric_->collective(*request.call, base_ + request.send_offset, base_ + request.recv_offset);
        break;
      }
    }
    return reply;
  }

 private:
  // As much of the region as the worker uses, mapped here (it grew it already).
  void map(std::size_t bytes) {
    if (bytes == 0 || (bytes <= mapped_ && base_)) return;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw RuntimeFailure("mmap", std::string("a worker's shared buffers: ") + std::strerror(errno));
    if (base_) munmap(base_, mapped_);
    base_ = static_cast<std::byte*>(p);
    mapped_ = bytes;
  }

  MPI_Comm comm_;
  std::unique_ptr<HostFabric> fabric_;
  int fd_ = -1;
  std::byte* base_ = nullptr;
  std::size_t mapped_ = 0;
};

}  // namespace

std::unique_ptr<WorkerDataPlane> make_mpi_data_plane(MPI_Comm comm) { return std::make_unique<MpiDataPlane>(comm); }

}  // namespace ncclsweep
