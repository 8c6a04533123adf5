// A real `ncclsweep worker` process, driven by the test as its MPI rank would drive it.
#include "catch_compat.hpp"
#include "transport/relay_step.hpp"
#include "processes/worker_process.hpp"
#include "processes/worker_protocol.hpp"

using namespace ncclsweep;

namespace {

WorkerStart two_rank_start() {
  WorkerStart start;
  start.rank = 0;
  start.ranks = 2;
  start.spec.collectives = {&collective("all_reduce")};
  start.spec.dtypes = {&data_type("float32")};
  start.spec.ops = {ReduceOp::sum};
  start.spec.sizes = {1 << 20};
  start.plan = plan_measurements(start.spec, start.ranks);
  start.nccl_log_path = "/dev/null";
  return start;
}

}  // namespace

TEST_CASE("a worker stops cleanly when another rank's worker failed", "[leaks]") {
  WorkerProcess worker(NCCLSWEEP_BINARY, {{"PATH", "/usr/bin:/bin"}});
  worker.channel().send(message(two_rank_start()));
  // Its first cross-rank step (whether it sees a GPU): answer that rank 1 failed.
  const auto message = worker.channel().receive();
  REQUIRE(message.has_value());
  REQUIRE(message->at("type") == "step");
  RelayStep combined = message->at("step").get<RelayStep>();
  combined.failed_rank = 1;
  worker.channel().send({{"type", "step"}, {"step", combined}});
  CHECK_FALSE(worker.channel().receive().has_value());  // no error of its own to report
  CHECK(worker.wait().text() == "exit 3");
}

TEST_CASE("a worker whose MPI rank goes away exits instead of hanging") {
  WorkerProcess worker(NCCLSWEEP_BINARY, {{"PATH", "/usr/bin:/bin"}});
  worker.channel().send(message(two_rank_start()));
  REQUIRE(worker.channel().receive().has_value());  // it waits in its first step...
  worker.channel().close();  // ...and its MPI rank goes away
  CHECK(worker.wait().text() == "exit 3");
}

TEST_CASE("a worker given a start it cannot read exits with status 3") {
  WorkerProcess worker(NCCLSWEEP_BINARY, {{"PATH", "/usr/bin:/bin"}});
  worker.channel().send({{"type", "start"}, {"rank", 0}});
  CHECK_FALSE(worker.channel().receive().has_value());
  CHECK(worker.wait().text() == "exit 3");
}

TEST_CASE("a worker that says nothing within the deadline is seen as silent and can be killed") {
  WorkerProcess worker(NCCLSWEEP_BINARY, {{"PATH", "/usr/bin:/bin"}});
  worker.channel().send(message(two_rank_start()));
  REQUIRE(worker.channel().wait_readable(std::chrono::seconds(60)));  // its first step comes
  REQUIRE(worker.channel().receive().has_value());
  // Unanswered, it waits in that step and says nothing more: the MPI rank's deadline passes.
  CHECK_FALSE(worker.channel().wait_readable(std::chrono::milliseconds(300)));
  worker.kill_now();
  CHECK(worker.wait().text().rfind("signal 9", 0) == 0);
}

TEST_CASE("reaping a worker that is done waits for its exit, and kills one that never exits") {
  WorkerProcess leaving(NCCLSWEEP_BINARY, {{"PATH", "/usr/bin:/bin"}});
  leaving.channel().send({{"type", "start"}, {"rank", 0}});  // unreadable: it exits with 3
  CHECK(leaving.wait_for(std::chrono::seconds(60)).text() == "exit 3");

  WorkerProcess stuck(NCCLSWEEP_BINARY, {{"PATH", "/usr/bin:/bin"}});
  stuck.channel().send(message(two_rank_start()));
  REQUIRE(stuck.channel().wait_readable(std::chrono::seconds(60)));
  REQUIRE(stuck.channel().receive().has_value());  // it now waits in its first step, forever
  const WorkerExit how = stuck.wait_for(std::chrono::milliseconds(300));
  CHECK(how.way == WorkerExit::Way::signalled);
  CHECK(how.number == 9);
  CHECK_FALSE(how.clean());
  CHECK(how.text() == "signal 9 (Killed), killed after 300 ms");
}

TEST_CASE("a worker start carries the resume keys, the fault and the timeout") {
  WorkerStart start = two_rank_start();
  MeasurementKey done;
  done.collective = &collective("all_reduce");
  done.dtype = &data_type("float32");
  done.op = ReduceOp::sum;
  done.size_bytes = done.requested_bytes = 1 << 20;
  done.placement = Placement::in_place;
  start.done = {done};
  start.fault = parse_fault_injection("1:sleep=5@default");
  start.spec.timeout_s = 77;
  const WorkerStart back = expect<WorkerStart>(message(start));
  CHECK(back.done == start.done);
  CHECK(back.fault.rank == 1);
  CHECK(back.fault.action == FaultAction::sleep);
  CHECK(back.fault.seconds == 5);
  CHECK(back.fault.point == "default");
  CHECK(back.spec.timeout_s == 77);
}
