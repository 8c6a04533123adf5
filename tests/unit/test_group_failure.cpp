#include "catch_compat.hpp"
#include "runtime/group_failure.hpp"

using namespace ncclsweep;

TEST_CASE("a failed group is described by the first rank that said why") {
  WorkerFailure result;
  result.failed = true;
  result.failed_rank = 1;
  const GroupFailure f = describe_group_failure(
      result, {"", "node1: ncclCommInitRankConfig failed: unhandled system error", "node2: worker ended with exit 3"});
  CHECK(f.reason == "rank 1 on node1: ncclCommInitRankConfig failed: unhandled system error");
  CHECK_FALSE(f.timed_out);
}

TEST_CASE("timeouts name every rank that did not finish, after the timeout's own words") {
  WorkerFailure result;
  result.failed = true;
  const GroupFailure f = describe_group_failure(
      result, {"node0: worker ended with exit 3", "node1: timeout: the worker made no progress within 60 s", "",
               "node2: timeout: the worker made no progress within 60 s"});
  CHECK(f.timed_out);
  CHECK(f.reason == "timeout: the worker made no progress within 60 s; did not finish: rank 1 (node1), rank 3 (node2)");
}

TEST_CASE("a group that failed without a word names the failed rank; a fine one says nothing") {
  WorkerFailure failed;
  failed.failed = true;
  failed.failed_rank = 2;
  CHECK(describe_group_failure(failed, {"", "", ""}).reason == "rank 2 failed");
  CHECK(describe_group_failure(WorkerFailure{}, {"", ""}).reason.empty());
}
