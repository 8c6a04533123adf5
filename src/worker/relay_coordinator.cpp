#include "worker/relay_coordinator.hpp"

#include <algorithm>
#include <cstring>

#include "core/errors.hpp"

namespace ncclsweep {

RelayStep RelayCoordinator::exchange(const RelayStep& mine, std::vector<double>* gathered) {
  channel_.send({{"type", "step"}, {"step", mine}});
  const auto reply = channel_.receive();
  if (!reply) throw RuntimeFailure("relay", "the MPI rank closed the worker channel");
  const RelayStep combined = reply->at("step").get<RelayStep>();
  if (combined.failed()) throw PeerFailure(combined.failed_rank);
  if (gathered) *gathered = reply->value("gathered", std::vector<double>());
  return combined;
}

void RelayCoordinator::broadcast(std::span<std::byte> data, int root) {
  RelayStep step;
  if (data.size() > step.bytes.size()) throw RuntimeFailure("relay", "broadcast larger than a relay step");
  if (rank_ == root) std::memcpy(step.bytes.data(), data.data(), data.size());
  const RelayStep combined = exchange(step);  // max with zeros elsewhere = the root's bytes
  std::memcpy(data.data(), combined.bytes.data(), data.size());
}

bool RelayCoordinator::all_ranks_agree(bool ok) {
  RelayStep step;
  step.flag = ok ? 0 : 1;
  return exchange(step).flag == 0;
}

std::vector<RankTimes> RelayCoordinator::reduce_times_each(const std::vector<double>& values) {
  return reduced_times(exchange(reduce_times_step(values)), values.size(), size_);
}

std::vector<double> RelayCoordinator::gather_on_first(double value) {
  RelayStep step;
  step.gather = 1;
  step.gather_value = value;
  std::vector<double> gathered;
  exchange(step, &gathered);
  if (rank_ == 0 && gathered.size() != static_cast<std::size_t>(size_)) {
    throw RuntimeFailure("relay", "the MPI rank gathered " + std::to_string(gathered.size()) + " values for " +
                                      std::to_string(size_) + " ranks");
  }
  return gathered;
}

std::uint64_t RelayCoordinator::sum(std::uint64_t value) {
  RelayStep step;
  step.count = value;
  return exchange(step).count;
}

std::vector<std::uint8_t> RelayCoordinator::max_codes(std::vector<std::uint8_t> codes) {
  RelayStep step;
  if (codes.size() > step.bytes.size()) throw RuntimeFailure("relay", "more status codes than a relay step holds");
  std::copy(codes.begin(), codes.end(), step.bytes.begin());
  const RelayStep combined = exchange(step);
  return {combined.bytes.begin(), combined.bytes.begin() + static_cast<std::ptrdiff_t>(codes.size())};
}

std::vector<double> RelayCoordinator::max_each(std::vector<double> values) {
  const std::size_t chunk = RelayStep{}.values.size();
  for (std::size_t first = 0; first < values.size(); first += chunk) {
    const std::size_t n = std::min(chunk, values.size() - first);
    RelayStep step;
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(first), n, step.values.begin());
    const RelayStep combined = exchange(step);
    std::copy_n(combined.values.begin(), n, values.begin() + static_cast<std::ptrdiff_t>(first));
  }
  return values;
}

void RelayCoordinator::end() {
  exchange(RelayStep{});
}

}  // namespace ncclsweep
