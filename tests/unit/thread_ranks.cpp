#include "thread_ranks.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

namespace ncclsweep::testing {
namespace {

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> values_of(const std::string& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// Element-wise maximum over every rank's values.
template <typename T>
std::vector<T> max_of(const std::vector<std::string>& parts) {
  std::vector<T> out = values_of<T>(parts.front());
  for (const std::string& part : parts) {
    const std::vector<T> v = values_of<T>(part);
    if (v.size() != out.size()) throw std::logic_error("ranks passed different counts to a collective");
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::max(out[i], v[i]);
  }
  return out;
}

}  // namespace

std::vector<std::string> Rendezvous::exchange(int rank, std::string part) {
  std::unique_lock lock(mutex_);
  if (abandoned_) throw AbandonedByAnotherRank();
  parts_[static_cast<std::size_t>(rank)] = std::move(part);
  if (++arrived_ == static_cast<int>(parts_.size())) {
    // The last to arrive: nobody can start the next round before every waiter copied this one.
    last_ = parts_;
    arrived_ = 0;
    ++round_;
    changed_.notify_all();
    return last_;
  }
  const std::uint64_t round = round_;
  changed_.wait(lock, [&] { return round_ != round || abandoned_; });
  if (round_ == round) throw AbandonedByAnotherRank();
  return last_;
}

void Rendezvous::abandon() {
  const std::lock_guard lock(mutex_);
  abandoned_ = true;
  changed_.notify_all();
}

ThreadRank::ThreadRank(Rendezvous& meeting, int rank, const std::vector<std::string>& hosts)
    : meeting_(meeting), rank_(rank), size_(static_cast<int>(hosts.size())), host_(hosts.at(static_cast<std::size_t>(rank))) {
  local_rank_ = static_cast<int>(std::count(hosts.begin(), hosts.begin() + rank, host_));
}

void ThreadRank::broadcast(std::span<std::byte> data, int root) {
  const std::string mine = rank_ == root ? std::string(reinterpret_cast<const char*>(data.data()), data.size()) : "";
  const std::string sent = exchange(mine).at(static_cast<std::size_t>(root));
  if (sent.size() != data.size()) throw std::logic_error("ranks passed different sizes to broadcast");
  std::memcpy(data.data(), sent.data(), data.size());
}

std::vector<RankTimes> ThreadRank::reduce_times_each(const std::vector<double>& values) {
  std::vector<RankTimes> out;
  for (const double v : values) out.push_back({v, 0, v});
  for (const std::string& part : exchange(bytes_of(values))) {
    const std::vector<double> theirs = values_of<double>(part);
    if (theirs.size() != values.size()) throw std::logic_error("ranks passed different counts to a collective");
    for (std::size_t i = 0; i < values.size(); ++i) {
      out[i].min = std::min(out[i].min, theirs[i]);
      out[i].max = std::max(out[i].max, theirs[i]);
      out[i].avg += theirs[i] / size_;
    }
  }
  return out;
}

std::vector<double> ThreadRank::gather_on_first(double value) {
  std::vector<double> all;
  const std::vector<std::string> parts = exchange(bytes_of(std::vector<double>{value}));
  if (rank_ != 0) return all;
  for (const std::string& part : parts) all.push_back(values_of<double>(part).at(0));
  return all;
}

std::uint64_t ThreadRank::sum(std::uint64_t value) {
  std::uint64_t total = 0;
  for (const std::string& part : exchange(bytes_of(std::vector<std::uint64_t>{value}))) {
    total += values_of<std::uint64_t>(part).at(0);
  }
  return total;
}

std::vector<std::uint8_t> ThreadRank::max_codes(std::vector<std::uint8_t> codes) {
  return max_of<std::uint8_t>(exchange(bytes_of(codes)));
}

std::vector<double> ThreadRank::max_each(std::vector<double> values) {
  return max_of<double>(exchange(bytes_of(values)));
}

int ThreadRank::max_across_ranks(int value) { return max_of<int>(exchange(bytes_of(std::vector<int>{value}))).at(0); }

std::string ThreadRank::broadcast_string(std::string value, int root) {
  return exchange(rank_ == root ? std::move(value) : std::string()).at(static_cast<std::size_t>(root));
}

std::vector<std::string> ThreadRank::gather(const std::string& value, int root) {
  std::vector<std::string> all = exchange(value);
  return rank_ == root ? all : std::vector<std::string>{};
}

CombinedStep ThreadRank::combine_relay_steps(const RelayStep& mine) {
  const std::vector<std::string> parts = exchange(bytes_of(std::vector<RelayStep>{mine}));
  CombinedStep combined{values_of<RelayStep>(parts.front()).at(0), {}};
  for (std::size_t r = 1; r < parts.size(); ++r) combine_steps(values_of<RelayStep>(parts[r]).at(0), combined.step);
  // As MpiSession: the gather follows only a step that asked for it and did not fail.
  if (rank_ == 0 && combined.step.gather != 0 && !combined.step.failed()) {
    for (const std::string& part : parts) combined.gathered.push_back(values_of<RelayStep>(part).at(0).gather_value);
  }
  return combined;
}

std::vector<int> run_ranks(const std::vector<std::string>& hosts, const std::function<int(ThreadRank&)>& body) {
  Rendezvous meeting(static_cast<int>(hosts.size()));
  std::vector<int> results(hosts.size(), -1);
  std::vector<std::exception_ptr> failures(hosts.size());
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        ThreadRank rank(meeting, static_cast<int>(r), hosts);
        results[r] = body(rank);
      } catch (...) {
        failures[r] = std::current_exception();
        meeting.abandon();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::exception_ptr abandoned;
  for (const std::exception_ptr& failure : failures) {
    if (!failure) continue;
    try {
      std::rethrow_exception(failure);
    } catch (const AbandonedByAnotherRank&) {
      abandoned = failure;
    }
  }
  if (abandoned) std::rethrow_exception(abandoned);
  return results;
}

std::vector<int> run_ranks(int size, const std::function<int(ThreadRank&)>& body) {
  return run_ranks(std::vector<std::string>(static_cast<std::size_t>(size), "test-host"), body);
}

}  // namespace ncclsweep::testing
