#pragma once
// The MPI side of a launch: initialisation and finalisation (RAII), the rank's place
// among the ranks of its host, and the few cross-rank operations the runtime needs.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/coordinator.hpp"
#include "engine/mpi/mpi_check.hpp"

namespace ncclsweep {

class MpiSession final : public Coordinator {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession() override;
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  const std::string& host() const { return host_; }
  MPI_Comm world() const { return world_; }

  void broadcast(std::span<std::byte> data, int root) override;
  bool all_ranks_agree(bool ok) override { return max_across_ranks(ok ? 0 : 1) == 0; }
  int max_across_ranks(int value);
  std::string library_version() const;  // first line of MPI_Get_library_version
  void barrier();
  RankTimes reduce_times(double seconds) override;
  std::uint64_t sum(std::uint64_t value) override;
  std::vector<std::uint8_t> max_codes(std::vector<std::uint8_t> codes) override;
  std::vector<double> max_each(std::vector<double> values) override;
  // `value` of `root`, on every rank.
  std::string broadcast_string(std::string value, int root = 0);
  // Every rank's string, in rank order, on `root`; empty elsewhere.
  std::vector<std::string> gather(const std::string& value, int root = 0);
  // Ends every rank of the launch; for failures one rank cannot recover from.
  [[noreturn]] void abort(int status);

 private:
  MPI_Comm world_ = MPI_COMM_NULL;  // a private duplicate of MPI_COMM_WORLD
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string host_;
};

}  // namespace ncclsweep
