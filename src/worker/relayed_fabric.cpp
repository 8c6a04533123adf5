#include "worker/relayed_fabric.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {
namespace {

constexpr std::size_t kAlignment = 4096;

std::size_t round_up(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

class RelayedFabric final : public HostFabric {
 public:
  RelayedFabric(MessageChannel& channel, int region_fd, int rank, int ranks)
      : channel_(channel), fd_(region_fd), world_{rank, ranks} {}
  ~RelayedFabric() override {
    if (base_) munmap(base_, mapped_);
    if (fd_ >= 0) close(fd_);
  }
  RelayedFabric(const RelayedFabric&) = delete;
  RelayedFabric& operator=(const RelayedFabric&) = delete;

  Place place(int comm) const override {
    if (comm == 0) return world_;
    if (comm < 0 || static_cast<std::size_t>(comm) > groups_.size()) {
      throw UsageError("internal: call on sub-communicator " + std::to_string(comm) + " before split");
    }
    return groups_[static_cast<std::size_t>(comm) - 1];
  }

  void split(const std::vector<int>& colors) override {
    FabricRequest request;
    request.op = FabricOp::split;
    request.colors = colors;
    groups_ = exchange(request).places;
  }

  void free_splits() override {
    if (groups_.empty()) return;
    FabricRequest request;
    request.op = FabricOp::free_splits;
    exchange(request);
    groups_.clear();
  }

  void barrier() override {
    FabricRequest request;
    request.op = FabricOp::barrier;
    exchange(request);
  }

  void collective(const CollectiveCall& call, std::byte* send, std::byte* recv) override {
    FabricRequest request;
    request.op = FabricOp::collective;
    request.call = call;
    request.send_offset = offset_of(send);
    request.recv_offset = offset_of(recv);
    request.region_bytes = used_;
    exchange(request);
  }

  // The receive buffer first, the send buffer after it, in one region grown as needed.
  HostBuffers buffers(std::size_t send_bytes, std::size_t recv_bytes) override {
    if (send_bytes != 0) send_bytes_ = send_bytes;
    if (recv_bytes != 0) recv_bytes_ = recv_bytes;
    const std::size_t send_at = round_up(recv_bytes_);
    used_ = send_at + send_bytes_;
    reserve(used_);
    return {base_ + send_at, base_};
  }

 private:
  Bytes offset_of(const std::byte* p) const {
    if (p < base_ || p > base_ + used_) throw RuntimeFailure("relayed collective", "a buffer outside the shared region");
    return static_cast<Bytes>(p - base_);
  }

  // The region at least `bytes` long, mapped here.
  void reserve(std::size_t bytes) {
    if (bytes <= mapped_ && base_) return;
    const std::size_t size = round_up(std::max(bytes, mapped_ * 2));
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      throw RuntimeFailure("host buffer allocation", "could not grow the worker's shared buffers to " + format_bytes(size) +
                                                         ": " + std::strerror(errno) +
                                                         " (fix: measure smaller sizes, use buffer_footprint: exact, or "
                                                         "run fewer ranks per host)");
    }
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw RuntimeFailure("mmap", std::string("the worker's shared buffers: ") + std::strerror(errno));
    if (base_) munmap(base_, mapped_);
    base_ = static_cast<std::byte*>(p);
    mapped_ = size;
  }

  FabricReply exchange(const FabricRequest& request) {
    channel_.send(message(request));
    const auto reply = channel_.receive();
    if (!reply) throw RuntimeFailure("relay", "the MPI rank closed the worker channel");
    return expect<FabricReply>(*reply);
  }

  MessageChannel& channel_;
  int fd_;
  Place world_;
  std::vector<Place> groups_;
  std::byte* base_ = nullptr;
  std::size_t mapped_ = 0, used_ = 0;
  std::size_t send_bytes_ = 0, recv_bytes_ = 0;
};

}  // namespace

std::unique_ptr<HostFabric> make_relayed_fabric(MessageChannel& channel, int region_fd, int rank, int ranks) {
  if (region_fd < 0) throw RuntimeFailure("worker start", "the mpi engine's worker has no shared region");
  return std::make_unique<RelayedFabric>(channel, region_fd, rank, ranks);
}

}  // namespace ncclsweep
