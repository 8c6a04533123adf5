#include "catch_compat.hpp"
#include "workload/buckets.hpp"
#include "workload/derivation.hpp"

using namespace ncclsweep;

namespace {
Param param(std::int64_t numel) { return {"p", numel, numel, 0, false, false}; }
}  // namespace

TEST_CASE("buckets close at the parameter that reaches bucket_size, walking in reverse") {
  // Registration order 100, 30, 50; walked 50, 30, 100. dp_cp 4: ends pad to lcm(4,128) = 128.
  // 50 -> offset 50 (< 60); 30 starts at 64 (64-element alignment) -> 94 >= 60: close,
  // end padded 94 -> 128, bucket 0 = 128 elements of 2 params.
  // 100 starts at 128 -> 228 >= 60: close, end 256, bucket 1 = 128 elements, 1 param.
  const auto buckets = form_buckets({param(100), param(30), param(50)}, 60, 4);
  REQUIRE(buckets.size() == 2);
  CHECK(buckets[0].elements == 128);
  CHECK(buckets[0].params == 2);
  CHECK(buckets[1].elements == 128);
  CHECK(buckets[1].params == 1);
}

TEST_CASE("bucket ends pad to lcm(dp*cp, 128) and unbucketed buffers are one bucket") {
  // dp_cp 96: lcm(96, 128) = 384. 1000 + (start of 10 at 1024) -> 1034, padded to 1152.
  const auto one = form_buckets({param(10), param(1000)}, 0, 96);
  REQUIRE(one.size() == 1);
  CHECK(one[0].elements == 1152);
  CHECK(one[0].params == 2);
  CHECK(default_bucket_size(8) == 40'000'000);
  CHECK(default_bucket_size(64) == 64'000'000);
}

TEST_CASE("layers split evenly over pipeline chunks, the first ones taking the remainder") {
  int total = 0, next = 0;
  for (int chunk = 0; chunk < 64; ++chunk) {
    const auto range = layers_of_chunk(126, chunk, 64);
    CHECK(range.first == next);
    CHECK(range.count == (chunk < 62 ? 2 : 1));
    next += range.count;
    total += range.count;
  }
  CHECK(total == 126);
}
