// --inject-fault's text and the default deadline.
#include "catch_compat.hpp"
#include "plan/measurement_plan.hpp"
#include "runtime/deadline.hpp"
#include "measure/fault_injection.hpp"

using namespace ncclsweep;

TEST_CASE("a fault names its rank, action and point") {
  const FaultInjection sleep = parse_fault_injection("1:sleep=2.5@p2");
  CHECK(sleep.rank == 1);
  CHECK(sleep.action == FaultAction::sleep);
  CHECK(sleep.seconds == Approx(2.5));
  CHECK(sleep.point == "p2");
  CHECK(sleep.applies(1, "p2"));
  CHECK_FALSE(sleep.applies(0, "p2"));
  CHECK_FALSE(sleep.applies(1, "p1"));
  const FaultInjection kill = parse_fault_injection("3:kill");
  CHECK(kill.action == FaultAction::kill);
  CHECK(kill.point == "default");
  CHECK(parse_fault_injection(to_text(sleep)).seconds == Approx(2.5));
  CHECK(parse_fault_injection(to_text(kill)).applies(3, "default"));
  CHECK(to_text(FaultInjection{}).empty());
}

TEST_CASE("slow=F slows every point unless one is named, and reads back from its text") {
  const FaultInjection slow = parse_fault_injection("2:slow=4");
  CHECK(slow.action == FaultAction::slow);
  CHECK(slow.factor == 4);
  CHECK(slow.point.empty());
  CHECK(slow.slows("default"));
  CHECK(slow.slows("NCCL_PROTO=LL"));
  CHECK(to_text(slow) == "2:slow=4");
  CHECK(parse_fault_injection(to_text(slow)).factor == 4);
  const FaultInjection at = parse_fault_injection("0:slow=3@p1");
  CHECK(at.slows("p1"));
  CHECK_FALSE(at.slows("p2"));
  CHECK(to_text(at) == "0:slow=3@p1");
  CHECK_FALSE(parse_fault_injection("1:sleep=2").slows("default"));
}

TEST_CASE("cpu-hog is a fault of its own beside the others") {
  const FaultInjection hog = parse_fault_injection("2:cpu-hog");
  CHECK(hog.rank == 2);
  CHECK(hog.action == FaultAction::cpu_hog);
  CHECK(parse_fault_injection(to_text(hog)).action == FaultAction::cpu_hog);
  CHECK_FALSE(inject_fault(hog));  // not a skip: the hog is held by the probe, not here
  CHECK_THAT(usage_error_text([] { parse_fault_injection("1:cpu-hogs"); }), ContainsSubstring("cpu-hog"));
}

TEST_CASE("a malformed fault is refused with the accepted form") {
  for (const char* bad : {"", "sleep", "x:exit", "-1:exit", "1:", "1:explode", "1:sleep=", "1:sleep=abc",
                          "1:sleep=-3", "1:sleep=1e9", "1:exit@", "99999999999:exit", "1:slow=", "1:slow=1",
                          "1:slow=2.5", "1:slow=101", "1:slow=x"}) {
    INFO(bad);
    const std::string text = usage_error_text([&] { parse_fault_injection(bad); });
    CHECK_THAT(text, ContainsSubstring("--inject-fault"));
    CHECK_THAT(text, ContainsSubstring("RANK:ACTION"));
  }
}

TEST_CASE("the deadline is the timeout when given, else scales with the largest size") {
  RunSpec spec;
  spec.collectives = {&collective("all_reduce")};
  spec.dtypes = {&data_type("float32")};
  spec.ops = {ReduceOp::sum};
  spec.warmup = 4;
  spec.iters = 20;
  spec.sizes = {1 << 20};
  CHECK(progress_deadline_s(spec, plan_measurements(spec, 2)) == Approx(kDefaultInitDeadlineS));
  spec.sizes = {1 << 20, 8ull << 30};
  const double big = progress_deadline_s(spec, plan_measurements(spec, 2));
  CHECK(big == Approx(kSizeDeadlineSlackS + 2.0 * 25 * (8ull << 30) / kPessimisticBytesPerS));
  CHECK(big > kDefaultInitDeadlineS);
  spec.timeout_s = 42;
  CHECK(progress_deadline_s(spec, plan_measurements(spec, 2)) == Approx(42));
}

TEST_CASE("slow=F@POINT slows the named search candidates on every rank by whole factors") {
  const FaultInjection slow = parse_fault_injection("slow=3@footprint=exact cache=warm;2@default");
  CHECK(slow.action == FaultAction::slow);
  CHECK(slow_factor(slow, 0, "footprint=exact cache=warm") == 3);
  CHECK(slow_factor(slow, 5, "footprint=exact cache=warm") == 3);
  CHECK(slow_factor(slow, 1, "default") == 2);
  CHECK(slow_factor(slow, 1, "footprint=largest cache=warm") == 1);
  CHECK_FALSE(inject_fault(slow));  // nothing happens where faults strike: the calls are slowed
  CHECK(slow_factor(parse_fault_injection(to_text(slow)), 2, "default") == 2);
  CHECK(slow_factor(parse_fault_injection("1:sleep=2@default"), 1, "default") == 1);
  for (const char* bad : {"slow=3", "slow=1@p", "slow=x@p", "slow=3@", "slow=@p", "slow=5000@p"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_fault_injection(bad), ContainsSubstring("slow"));
  }
}
