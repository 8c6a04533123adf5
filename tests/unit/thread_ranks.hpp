#pragma once
// A launch's ranks as threads of the test process (the in-process fake of RankGroup), so
// the runtime's collective decisions (stop, resume, refusals, fault settlement) run as
// unit tests: each collective waits for every rank's part, then each rank works its
// answer out from all the parts, as MPI would hand it back.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport/rank_group.hpp"

namespace ncclsweep::testing {

// What a rank waiting in a collective throws once another rank failed.
struct AbandonedByAnotherRank : std::runtime_error {
  AbandonedByAnotherRank() : std::runtime_error("another rank failed") {}
};

// What ThreadRank::abort throws on the rank that aborts (the others are abandoned).
struct RankAborted : std::runtime_error {
  explicit RankAborted(int status) : std::runtime_error("a rank aborted the launch"), status(status) {}
  int status;
};

// Where the threads meet. A rank that fails abandons it, so the others stop waiting
// (as MPI_Abort ends the ranks stuck in a collective with it) instead of hanging.
class Rendezvous {
 public:
  explicit Rendezvous(int size) : parts_(static_cast<std::size_t>(size)) {}
  // Every rank's part, in rank order, once every rank has given its own.
  std::vector<std::string> exchange(int rank, std::string part);
  void abandon();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> parts_, last_;
  int arrived_ = 0;
  std::uint64_t round_ = 0;
  bool abandoned_ = false;
};

class ThreadRank final : public RankGroup {
 public:
  // hosts[r]: rank r's host name (ranks sharing one get local ranks 0, 1, ...).
  ThreadRank(Rendezvous& meeting, int rank, const std::vector<std::string>& hosts);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  const std::string& host() const override { return host_; }
  void broadcast(std::span<std::byte> data, int root) override;
  bool all_ranks_agree(bool ok) override { return max_across_ranks(ok ? 0 : 1) == 0; }
  std::vector<RankTimes> reduce_times_each(const std::vector<double>& values) override;
  std::vector<double> gather_on_first(double value) override;
  std::uint64_t sum(std::uint64_t value) override;
  std::vector<std::uint8_t> max_codes(std::vector<std::uint8_t> codes) override;
  std::vector<double> max_each(std::vector<double> values) override;
  int max_across_ranks(int value) override;
  void barrier() override { exchange(""); }
  using RankGroup::broadcast_string;
  using RankGroup::gather;
  std::string broadcast_string(std::string value, int root) override;
  std::vector<std::string> gather(const std::string& value, int root) override;
  CombinedStep combine_relay_steps(const RelayStep& mine) override;
  std::string library_version() const override { return "ncclsweep test ranks (threads)"; }
  [[noreturn]] void abort(int status) override {
    meeting_.abandon();
    throw RankAborted(status);
  }

 private:
  std::vector<std::string> exchange(std::string part) { return meeting_.exchange(rank_, std::move(part)); }

  Rendezvous& meeting_;
  int rank_, size_, local_rank_ = 0;
  std::string host_;
};

// Runs body(ranks) on `hosts.size()` threads, one rank each, and returns each rank's
// result. Once every thread ended, the first failure of a rank (not a rank that was only
// abandoned by it) is rethrown here.
std::vector<int> run_ranks(const std::vector<std::string>& hosts, const std::function<int(ThreadRank&)>& body);
// `size` ranks on one host.
std::vector<int> run_ranks(int size, const std::function<int(ThreadRank&)>& body);

}  // namespace ncclsweep::testing
