#pragma once
// The control plane between ranks, apart from any engine's data plane: the runtime
// implements it over MPI (transport/mpi_session.hpp), a worker by relaying through its
// MPI rank (worker/relay_coordinator.hpp), and engines and the measurement loop use it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ncclsweep {

struct RankTimes {
  double min = 0, avg = 0, max = 0;
};

// The most values one Coordinator::reduce_times_each takes.
inline constexpr std::size_t kReducedValues = 8;

// The control plane: what the runtime and engines need from the other ranks,
// independent of the engine's data plane. MPI ranks implement it with MPI; worker
// processes by relaying through their MPI rank.
class Coordinator {
 public:
  virtual ~Coordinator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks on this host
  virtual void broadcast(std::span<std::byte> data, int root) = 0;
  // True on every rank when `ok` is true on every rank: lets a rank that cannot go on
  // stop the others before they wait for it in a collective.
  virtual bool all_ranks_agree(bool ok) = 0;
  // min, avg, max over ranks of one value.
  RankTimes reduce_times(double seconds) { return reduce_times_each({seconds}).front(); }
  // The min, avg and max over ranks of each of a few values (at most kReducedValues), in
  // one collective of fixed size: a measurement's statistics cost O(log N) per rank.
  virtual std::vector<RankTimes> reduce_times_each(const std::vector<double>& values) = 0;
  // Every rank's `value` in rank order on rank 0, empty on the other ranks: each rank sends
  // one value and only rank 0 receives N, where every rank would with an all-reduce.
  virtual std::vector<double> gather_on_first(double value) = 0;
  virtual std::uint64_t sum(std::uint64_t value) = 0;
  // Element-wise maximum of small status codes over ranks (the worst status wins).
  virtual std::vector<std::uint8_t> max_codes(std::vector<std::uint8_t> codes) = 0;
  // Element-wise maximum over ranks of per-iteration times (the slowest rank bounds each
  // iteration). Every rank passes the same number of values.
  virtual std::vector<double> max_each(std::vector<double> values) = 0;
};

}  // namespace ncclsweep
