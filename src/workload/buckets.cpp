#include "workload/buckets.hpp"

#include <algorithm>
#include <numeric>

namespace ncclsweep {
namespace {

std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

}  // namespace

std::int64_t default_bucket_size(int dp_cp) { return std::max<std::int64_t>(40'000'000, 1'000'000LL * dp_cp); }

std::vector<Bucket> form_buckets(const std::vector<Param>& params, std::int64_t bucket_size, int dp_cp) {
  const std::int64_t end_multiple = std::lcm<std::int64_t>(dp_cp, 128);
  std::vector<Bucket> buckets;
  std::int64_t offset = 0, bucket_start = 0;
  int in_bucket = 0;
  auto close = [&] {
    const std::int64_t end = round_up(offset, end_multiple);
    buckets.push_back({end - bucket_start, in_bucket});
    offset = bucket_start = end;
    in_bucket = 0;
  };
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    offset = round_up(offset, 64) + it->numel;
    ++in_bucket;
    if (bucket_size > 0 && offset - bucket_start >= bucket_size) close();
  }
  if (in_bucket > 0) close();
  return buckets;
}

}  // namespace ncclsweep
