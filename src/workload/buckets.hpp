#pragma once
// Megatron-Core's gradient buckets (docs/workloads.md): parameters walked in reverse
// registration order, each start padded to 64 elements, a bucket closing after the
// parameter that takes it to at least bucket_size elements, its end padded to
// lcm(dp*cp, 128) elements.
#include <cstdint>
#include <vector>

#include "workload/model.hpp"

namespace ncclsweep {

struct Bucket {
  std::int64_t elements = 0;  // padded: what the collective moves (total, all ranks)
  int params = 0;
};

// bucket_size <= 0: the whole buffer is one bucket. dp_cp: the data-parallel group
// size including context parallel.
std::vector<Bucket> form_buckets(const std::vector<Param>& registration_order, std::int64_t bucket_size, int dp_cp);

// Megatron's default: max(40,000,000, 1,000,000 * dp_cp) elements.
std::int64_t default_bucket_size(int dp_cp);

}  // namespace ncclsweep
