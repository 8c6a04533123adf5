#pragma once
// The Coordinator of a worker process: each cross-rank operation becomes a RelayStep
// sent to the worker's MPI rank, which combines it with every other rank's.
#include "core/errors.hpp"
#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "processes/message_channel.hpp"
#include "transport/relay_step.hpp"

namespace ncclsweep {

// Another rank's worker failed: this group stops. Not this worker's fault, so not
// reported as its error.
class PeerFailure : public RuntimeFailure {
 public:
  explicit PeerFailure(int rank)
      : RuntimeFailure("relay", "the worker of rank " + std::to_string(rank) + " failed"), rank_(rank) {}
  int rank() const { return rank_; }

 private:
  int rank_;
};

class RelayCoordinator final : public Coordinator {
 public:
  RelayCoordinator(MessageChannel& channel, int rank, int size, int local_rank)
      : channel_(channel), rank_(rank), size_(size), local_rank_(local_rank) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  void broadcast(std::span<std::byte> data, int root) override;
  bool all_ranks_agree(bool ok) override;
  std::vector<RankTimes> reduce_times_each(const std::vector<double>& values) override;
  // One step that asks the MPI ranks to gather; rank 0's worker gets the values back.
  std::vector<double> gather_on_first(double value) override;
  std::uint64_t sum(std::uint64_t value) override;
  std::vector<std::uint8_t> max_codes(std::vector<std::uint8_t> codes) override;
  // One step per chunk of RelayStep::values; the chunk count follows from the value
  // count, which every rank shares, so the steps stay uniform across ranks.
  std::vector<double> max_each(std::vector<double> values) override;
  // The group's last step: every rank's worker reached the end.
  void end();

 private:
  // Sends one step and waits for the combined one; throws PeerFailure when a rank failed.
  // `gathered` (when given) gets what a gathering step brought rank 0.
  RelayStep exchange(const RelayStep& mine, std::vector<double>* gathered = nullptr);

  MessageChannel& channel_;
  int rank_, size_, local_rank_;
};

}  // namespace ncclsweep
