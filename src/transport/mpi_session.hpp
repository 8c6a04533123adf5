#pragma once
// The MPI side of a launch: initialisation and finalisation (RAII), the rank's place
// among the ranks of its host, and the few cross-rank operations the runtime needs.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/stall_watch.hpp"
#include "engine/mpi/mpi_check.hpp"
#include "transport/rank_group.hpp"
#include "transport/relay_reducer.hpp"

namespace ncclsweep {

// Longer than any healthy launch waits inside one call for the other ranks (a probe's
// slowest rank, rank 0 writing its reports), short of forever.
inline constexpr double kDefaultStallLimitS = 600;

class MpiSession final : public RankGroup {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession() override;
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  const std::string& host() const override { return host_; }
  MPI_Comm world() const { return world_; }
  // Collective the first time: a duplicate of the world for the collectives this rank
  // runs for its workers (processes/worker_data_plane.hpp), apart from its own messages.
  MPI_Comm data_plane_comm();

  void broadcast(std::span<std::byte> data, int root) override;
  bool all_ranks_agree(bool ok) override { return max_across_ranks(ok ? 0 : 1) == 0; }
  int max_across_ranks(int value) override;
  std::string library_version() const override;  // first line of MPI_Get_library_version
  void barrier() override;
  std::vector<RankTimes> reduce_times_each(const std::vector<double>& values) override;
  std::vector<double> gather_on_first(double value) override;
  std::uint64_t sum(std::uint64_t value) override;
  std::vector<std::uint8_t> max_codes(std::vector<std::uint8_t> codes) override;
  std::vector<double> max_each(std::vector<double> values) override;
  using RankGroup::broadcast_string;
  using RankGroup::gather;
  std::string broadcast_string(std::string value, int root) override;
  std::vector<std::string> gather(const std::string& value, int root) override;
  CombinedStep combine_relay_steps(const RelayStep& mine) override;
  [[noreturn]] void abort(int status) override;

  // Watches every blocking call of this session and of the mpi engine made on it; past
  // its limit (kDefaultStallLimitS until a launch sets its own) the rank says which call
  // waited and exits with status 3, and the launcher ends the others.
  StallWatch& stall_watch() { return stall_watch_; }

 private:
  MPI_Comm world_ = MPI_COMM_NULL;  // a private duplicate of MPI_COMM_WORLD
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string host_;
  std::optional<RelayReducer> relay_;  // made on the first relayed step or time reduction
  MPI_Comm data_plane_ = MPI_COMM_NULL;  // made on the first worker of the mpi engine
  StallWatch stall_watch_;                // last: its thread reads rank_ and host_
};

}  // namespace ncclsweep
