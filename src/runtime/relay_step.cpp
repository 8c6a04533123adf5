#include "runtime/relay_step.hpp"

#include <algorithm>

namespace ncclsweep {

void combine_steps(const RelayStep& from, RelayStep& into) {
  into.failed_rank = std::min(into.failed_rank, from.failed_rank);
  into.flag = std::max(into.flag, from.flag);
  into.min = std::min(into.min, from.min);
  into.max = std::max(into.max, from.max);
  into.sum += from.sum;
  into.count += from.count;
  for (std::size_t i = 0; i < into.bytes.size(); ++i) into.bytes[i] = std::max(into.bytes[i], from.bytes[i]);
}

void to_json(nlohmann::json& j, const RelayStep& s) {
  j = nlohmann::json{{"failed_rank", s.failed_rank}, {"flag", s.flag}, {"min", s.min}, {"max", s.max},
                     {"sum", s.sum},                 {"count", s.count}, {"bytes", s.bytes}};
}

void from_json(const nlohmann::json& j, RelayStep& s) {
  j.at("failed_rank").get_to(s.failed_rank);
  j.at("flag").get_to(s.flag);
  j.at("min").get_to(s.min);
  j.at("max").get_to(s.max);
  j.at("sum").get_to(s.sum);
  j.at("count").get_to(s.count);
  j.at("bytes").get_to(s.bytes);
}

}  // namespace ncclsweep
