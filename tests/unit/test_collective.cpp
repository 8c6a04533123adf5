#include "catch_compat.hpp"
#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"

using namespace ncclsweep;

TEST_CASE("busbw factors follow nccl-tests") {
  CHECK(collective("all_gather").busbw_factor(8) == Approx(7.0 / 8));
  CHECK(collective("reduce_scatter").busbw_factor(2) == Approx(0.5));
  CHECK(collective("all_reduce").busbw_factor(8) == Approx(2.0 * 7 / 8));
  CHECK(collective("alltoall").busbw_factor(4) == Approx(0.75));
  CHECK(collective("broadcast").busbw_factor(8) == Approx(1.0));
  CHECK(collective("reduce").busbw_factor(8) == Approx(1.0));
  CHECK(collective("sendrecv").busbw_factor(8) == Approx(1.0));
}

TEST_CASE("count is per rank; the total follows the nccl-tests convention") {
  // The reference table: all_gather 1048576 B float on 2 ranks has count 131072.
  CHECK(count_per_rank(collective("all_gather"), 1048576, 2, 4) == 131072);
  CHECK(count_per_rank(collective("reduce_scatter"), 1048576, 2, 4) == 131072);
  CHECK(count_per_rank(collective("all_reduce"), 1048576, 2, 4) == 262144);
  CHECK(send_elements(collective("all_gather"), 10, 4) == 10);
  CHECK(recv_elements(collective("all_gather"), 10, 4) == 40);
  CHECK(send_elements(collective("reduce_scatter"), 10, 4) == 40);
  CHECK(recv_elements(collective("reduce_scatter"), 10, 4) == 10);
  CHECK(send_elements(collective("alltoall"), 10, 4) == 40);
  CHECK(recv_elements(collective("alltoall"), 10, 4) == 40);
}

TEST_CASE("a size that is not a multiple of ranks x element rounds down") {
  const auto& ag = collective("all_gather");
  const std::uint64_t count = count_per_rank(ag, 1000, 3, 4);
  CHECK(count == 83);
  CHECK(total_bytes(ag, count, 3, 4) == 996);
  CHECK(total_bytes(collective("all_reduce"), count_per_rank(collective("all_reduce"), 1001, 3, 4), 3, 4) == 1000);
}

TEST_CASE("unknown names list the valid ones") {
  CHECK_THAT(usage_error_text([] { collective("allgather"); }), ContainsSubstring("fix: use one of: all_gather, reduce_scatter"));
  CHECK_THAT(usage_error_text([] { data_type("float128"); }), ContainsSubstring("bfloat16"));
  CHECK_THAT(usage_error_text([] { reduce_op("mean"); }), ContainsSubstring("sum, prod, max, min, avg"));
}

TEST_CASE("dtype aliases from nccl-tests and PyTorch") {
  CHECK(data_type("float").name == "float32");
  CHECK(data_type("bf16").name == "bfloat16");
  CHECK(data_type("fp8_e4m3").nccl_id == 10);
  CHECK(data_type("bfloat16").nccl_id == 9);
}
