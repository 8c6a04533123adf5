#include "transport/relay_step.hpp"

#include <algorithm>

#include "core/errors.hpp"

namespace ncclsweep {

void combine_steps(const RelayStep& from, RelayStep& into) {
  into.failed_rank = std::min(into.failed_rank, from.failed_rank);
  into.flag = std::max(into.flag, from.flag);
  into.gather = std::max(into.gather, from.gather);
  into.count += from.count;
  for (std::size_t i = 0; i < into.sums.size(); ++i) into.sums[i] += from.sums[i];
  for (std::size_t i = 0; i < into.bytes.size(); ++i) into.bytes[i] = std::max(into.bytes[i], from.bytes[i]);
  for (std::size_t i = 0; i < into.values.size(); ++i) into.values[i] = std::max(into.values[i], from.values[i]);
}

RelayStep reduce_times_step(const std::vector<double>& values) {
  if (values.size() > kReducedValues) throw RuntimeFailure("relay", "more values than one reduction takes");
  RelayStep step;
  for (std::size_t i = 0; i < values.size(); ++i) {
    step.values[2 * i] = values[i];
    step.values[2 * i + 1] = -values[i];  // the largest negation is the smallest value
    step.sums[i] = values[i];
  }
  return step;
}

namespace {

template <typename T, std::size_t N>
nlohmann::json without_trailing_zeros(const std::array<T, N>& values) {
  std::size_t used = N;
  while (used > 0 && values[used - 1] == T{}) --used;
  return std::vector<T>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(used));
}

template <typename T, std::size_t N>
void read_padded(const nlohmann::json& j, const char* key, std::array<T, N>& into) {
  const auto& given = j.at(key);
  if (!given.is_array() || given.size() > N) {
    throw RuntimeFailure("relay", std::string("a relay step's ") + key + " is not a list of at most " + std::to_string(N) +
                                      " values");
  }
  into.fill(T{});
  for (std::size_t i = 0; i < given.size(); ++i) into[i] = given[i].get<T>();
}

}  // namespace

void to_json(nlohmann::json& j, const RelayStep& step) {
  j = {{"failed_rank", step.failed_rank}, {"flag", step.flag}, {"gather", step.gather},
       {"gather_value", step.gather_value}, {"count", step.count}, {"sums", without_trailing_zeros(step.sums)},
       {"bytes", without_trailing_zeros(step.bytes)}, {"values", without_trailing_zeros(step.values)}};
}

void from_json(const nlohmann::json& j, RelayStep& step) {
  j.at("failed_rank").get_to(step.failed_rank);
  j.at("flag").get_to(step.flag);
  j.at("gather").get_to(step.gather);
  j.at("gather_value").get_to(step.gather_value);
  j.at("count").get_to(step.count);
  read_padded(j, "sums", step.sums);
  read_padded(j, "bytes", step.bytes);
  read_padded(j, "values", step.values);
}

std::vector<RankTimes> reduced_times(const RelayStep& combined, std::size_t count, int ranks) {
  std::vector<RankTimes> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = {-combined.values[2 * i + 1], combined.sums[i] / ranks, combined.values[2 * i]};
  }
  return out;
}

}  // namespace ncclsweep
