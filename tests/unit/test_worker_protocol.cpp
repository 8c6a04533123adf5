// The pieces of the worker protocol that need no MPI: the relay step's combination,
// its JSON form, the worker's environment, and the framing over a real socket pair.
#include <sys/socket.h>
#include <unistd.h>

#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "plan/sweep_plan.hpp"
#include "runtime/launch.hpp"
#include "processes/message_channel.hpp"
#include "transport/relay_step.hpp"
#include "processes/worker_environment.hpp"
#include "processes/worker_pool.hpp"
#include "processes/worker_protocol.hpp"
#include "spec/sweep.hpp"
#include "thread_ranks.hpp"
#include "worker/relay_coordinator.hpp"

using namespace ncclsweep;

TEST_CASE("relay steps combine field by field, and a failure wins") {
  RelayStep a, b;
  a.sums[0] = 2.0;
  b.sums[0] = 5.0;
  a.values[3] = 2.0;
  b.values[3] = 5.0;
  a.count = 3;
  b.count = 4;
  a.flag = 0;
  b.flag = 1;
  a.gather = 1;
  a.gather_value = 8.0;
  b.gather_value = 9.0;
  a.bytes[0] = 7;  // a broadcast: only the root fills the bytes
  b.bytes[1] = 2;
  b.failed_rank = 3;
  combine_steps(a, b);
  CHECK(b.sums[0] == 7.0);
  CHECK(b.values[3] == 5.0);
  CHECK(b.count == 7);
  CHECK(b.flag == 1);
  CHECK(b.gather == 1);
  CHECK(b.gather_value == 9.0);  // each rank's own, never combined
  CHECK(b.bytes[0] == 7);
  CHECK(b.bytes[1] == 2);
  CHECK(b.failed());
  CHECK(b.failed_rank == 3);
  RelayStep c;
  c.failed_rank = 1;
  combine_steps(c, b);
  CHECK(b.failed_rank == 1);  // the lowest failing rank
  CHECK_FALSE(RelayStep{}.failed());
}

TEST_CASE("a relay step crosses the worker wire exactly, its arrays' trailing zeros left off") {
  RelayStep step;
  step.failed_rank = 2;
  step.flag = 1;
  step.gather = 1;
  step.gather_value = 0.1 + 0.2;  // not a short decimal: read back to the last bit
  step.count = 9;
  step.sums[0] = -3.5;
  step.bytes[0] = 7;
  step.bytes[2] = 255;  // a zero between two set bytes stays in
  step.values[1] = -1e-9;
  step.values[63] = 4.25;  // the last entry set: the array goes out whole
  const nlohmann::json wire = step;
  CHECK(wire.at("sums").size() == 1);
  CHECK(wire.at("bytes").size() == 3);
  CHECK(wire.at("values").size() == 64);
  const RelayStep back = nlohmann::json::parse(wire.dump()).get<RelayStep>();
  CHECK(back.failed_rank == 2);
  CHECK(back.flag == 1);
  CHECK(back.gather == 1);
  CHECK(back.gather_value == step.gather_value);
  CHECK(back.count == 9);
  CHECK(back.sums == step.sums);
  CHECK(back.bytes == step.bytes);
  CHECK(back.values == step.values);
  // A default step is short on the wire, and reads back as the default.
  const nlohmann::json empty = RelayStep{};
  CHECK(empty.at("bytes").empty());
  CHECK(empty.at("values").empty());
  const RelayStep default_back = empty.get<RelayStep>();
  CHECK(default_back.bytes == RelayStep{}.bytes);
  CHECK_FALSE(default_back.failed());
  // More entries than the step holds is a broken wire, said as one.
  nlohmann::json too_long = empty;
  too_long["bytes"] = std::vector<int>(257, 1);
  CHECK_THROWS_WITH(too_long.get<RelayStep>(), ContainsSubstring("bytes is not a list of at most 256 values"));
  nlohmann::json not_a_list = empty;
  not_a_list["values"] = 1.5;
  CHECK_THROWS_WITH(not_a_list.get<RelayStep>(), ContainsSubstring("values is not a list of at most 64 values"));
}

TEST_CASE("one relay step reduces the min, mean and max of several values") {
  const std::vector<std::vector<double>> ranks{{1.0, -4.0, 10.0}, {3.0, -1.0, 10.0}, {2.0, -7.0, 40.0}};
  RelayStep combined = reduce_times_step(ranks[0]);
  for (std::size_t r = 1; r < ranks.size(); ++r) combine_steps(reduce_times_step(ranks[r]), combined);
  const std::vector<RankTimes> t = reduced_times(combined, 3, 3);
  REQUIRE(t.size() == 3);
  CHECK(t[0].min == 1.0);
  CHECK(t[0].avg == Approx(2.0));
  CHECK(t[0].max == 3.0);
  CHECK(t[1].min == -7.0);  // negative values too
  CHECK(t[1].avg == Approx(-4.0));
  CHECK(t[1].max == -1.0);
  CHECK(t[2].min == 10.0);
  CHECK(t[2].avg == Approx(20.0));
  CHECK(t[2].max == 40.0);
  CHECK_THROWS_AS(reduce_times_step(std::vector<double>(kReducedValues + 1, 1.0)), RuntimeFailure);
}

TEST_CASE("a relay step survives its JSON form") {
  RelayStep s;
  s.failed_rank = 5;
  s.sums[2] = 1.5;
  s.gather = 1;
  s.gather_value = 2.5;
  s.count = 9;
  s.bytes[255] = 200;
  const RelayStep back = nlohmann::json(s).get<RelayStep>();
  CHECK(back.failed_rank == 5);
  CHECK(back.sums[2] == 1.5);
  CHECK(back.gather == 1);
  CHECK(back.gather_value == 2.5);
  CHECK(back.count == 9);
  CHECK(back.bytes[255] == 200);
}

// Workers' statistics and gathers through their MPI ranks, as the nccl engine's measurement
// loop sends them: each worker a RelayCoordinator over a socket pair, each MPI rank a
// thread rank answering as the worker pool does.
TEST_CASE("relayed workers reduce statistics in one step each and only rank 0's worker gets every rank's value") {
  constexpr int kRanks = 3;
  std::vector<std::vector<RankTimes>> reduced(kRanks);
  std::vector<std::vector<double>> gathered(kRanks);
  ncclsweep::testing::run_ranks(kRanks, [&](ncclsweep::testing::ThreadRank& rank) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair failed");
    MessageChannel mpi_side(fds[0]), worker_side(fds[1]);
    const int r = rank.rank();
    std::exception_ptr failure;
    std::thread worker([&, r] {
      try {
        RelayCoordinator relay(worker_side, r, kRanks, 0);
        reduced[static_cast<std::size_t>(r)] = relay.reduce_times_each({10.0 * (r + 1), -1.0 * r});
        gathered[static_cast<std::size_t>(r)] = relay.gather_on_first(100.0 + r);
      } catch (...) {
        failure = std::current_exception();
      }
      worker_side.close();  // as a worker that exits: its MPI rank reads the end
    });
    int steps = 0;
    for (; steps < 2; ++steps) {
      const auto message = mpi_side.receive();
      if (!message) break;
      mpi_side.send(relay_step_reply(rank.combine_relay_steps(message->at("step").get<RelayStep>())));
    }
    worker.join();
    if (failure) std::rethrow_exception(failure);
    return steps;
  });
  for (int r = 0; r < kRanks; ++r) {
    const auto& t = reduced[static_cast<std::size_t>(r)];
    REQUIRE(t.size() == 2);
    CHECK(t[0].min == 10.0);
    CHECK(t[0].avg == Approx(20.0));
    CHECK(t[0].max == 30.0);
    CHECK(t[1].min == -2.0);
    CHECK(t[1].max == 0.0);
  }
  CHECK(gathered[0] == std::vector<double>{100.0, 101.0, 102.0});
  CHECK(gathered[1].empty());
  CHECK(gathered[2].empty());
}

TEST_CASE("the worker environment adds the group's variables and NCCL's log, keeping the user's wishes") {
  const auto env = worker_environment({{"PATH", "/bin"}, {"NCCL_DEBUG", "TRACE"}, {"NCCL_DEBUG_SUBSYS", "COLL"}},
                                      {{"NCCL_MAX_NCHANNELS", "4"}}, "/r/nccl-logs/group0-rank0.log");
  CHECK(env.at("PATH") == "/bin");
  CHECK(env.at("NCCL_MAX_NCHANNELS") == "4");
  CHECK(env.at("NCCL_DEBUG") == "TRACE");  // a higher level than INFO is kept
  CHECK(env.at("NCCL_DEBUG_SUBSYS") == "COLL,INIT,ENV");
  CHECK(env.at("NCCL_DEBUG_FILE") == "/r/nccl-logs/group0-rank0.log");
  const auto plain = worker_environment({{"NCCL_DEBUG", "WARN"}, {"NCCL_DEBUG_SUBSYS", "^COLL"}}, {}, "x");
  CHECK(plain.at("NCCL_DEBUG") == "INFO");
  CHECK(plain.at("NCCL_DEBUG_SUBSYS") == "INIT,ENV");  // an exclusion list cannot be merged
  CHECK(worker_environment({}, {}, "x", /*log_tuning=*/true).at("NCCL_DEBUG_SUBSYS") == "INIT,ENV,TUNING");
}

TEST_CASE("messages cross a socket pair whole, and a closed peer reads as the end") {
  int fds[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  MessageChannel parent(fds[0]);
  {
    MessageChannel worker(fds[1]);
    WorkerStart start;
    start.rank = 1;
    start.ranks = 4;
    start.spec.collectives = {&collective("all_gather")};
    start.spec.dtypes = {&data_type("bfloat16")};
    start.spec.ops = {ReduceOp::sum};
    start.spec.sizes = {1 << 20};
    start.plan = plan_measurements(start.spec, start.ranks);
    parent.send(message(start));
    const WorkerStart got = expect<WorkerStart>(*worker.receive());
    CHECK(got.rank == 1);
    CHECK(got.spec.collectives.front()->name == "all_gather");
    MeasureRequest request;
    request.point.label = "NCCL_PROTO=LL";
    request.point.env = {{"NCCL_PROTO", "LL"}};
    request.point.config = {config_setting("max_ctas", "8")};
    request.calls = {0};
    request.first_repeat = 2;
    request.order = RepeatOrder::interleaved;
    request.slow_factor = 3;
    parent.send(message(request));
    const MeasureRequest back = expect<MeasureRequest>(*worker.receive());
    CHECK(back.point.config.front().name() == "max_ctas");
    CHECK(back.point.config.front().number == 8);
    CHECK(back.point.env.front().second == "LL");
    CHECK(back.calls == std::vector<std::size_t>{0});
    CHECK(back.first_repeat == 2);
    CHECK(back.order == RepeatOrder::interleaved);
    CHECK(back.slow_factor == 3);
    // A message of another type where one was due is refused, naming both.
    CHECK_THROWS_WITH(expect<MeasureRequest>(message(StopWorker{})), ContainsSubstring("'stop' message where 'measure'"));
  }
  CHECK_FALSE(parent.receive().has_value());  // the worker's end closed
}

// The sweep plan as workers receive it (runtime/launch.hpp): a group per isolation group,
// and in each point the variables to set, the config fields to apply and every setting
// to verify, none verified yet.
TEST_CASE("a sweep plan's groups reach the workers with env, config and settings to verify apart") {
  const SweepPlan plan = plan_sweep(
      load_sweep_text("env:\n  NCCL_PROTO: [LL, Simple]\n  NCCL_MAX_NCHANNELS: [4, 32]\nconfig:\n  max_ctas: [8, 16]\n",
                      "t.yaml"),
      PlanOptions{});
  const std::vector<WorkerGroup> groups = worker_groups(plan);
  REQUIRE(groups.size() == plan.isolation_groups.size());
  REQUIRE(groups.size() == 2);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const IsolationGroup& planned = plan.isolation_groups[g];
    CHECK(groups[g].index == planned.index);
    CHECK(groups[g].process_env == planned.process_env);
    REQUIRE(groups[g].points.size() == planned.points.size());
    for (std::size_t i = 0; i < planned.points.size(); ++i) {
      const SweepPoint& point = plan.points[static_cast<std::size_t>(planned.points[i])];
      const PointSpec& sent = groups[g].points[i];
      CHECK(sent.label == point.label);
      REQUIRE(sent.settings.size() == 3);
      for (const SettingOutcome& s : sent.settings) CHECK(s.status == SettingStatus::unverified);
      REQUIRE(sent.config.size() == 1);
      CHECK(sent.config[0].name() == "max_ctas");
      CHECK(sent.env.size() == 2);  // NCCL_PROTO and NCCL_MAX_NCHANNELS: every point sets both
      for (const auto& [name, value] : sent.env) CHECK(name.rfind("NCCL_", 0) == 0);
    }
  }
  // Group 0 holds NCCL_MAX_NCHANNELS=4's four points: max_ctas innermost, then NCCL_PROTO.
  CHECK(groups[0].points[0].config[0].value != groups[0].points[1].config[0].value);
  CHECK(groups[0].points[0].env != groups[0].points[2].env);
}

TEST_CASE("a worker gets the launch's measurement plan call for call, modes and communicators included") {
  RunSpec spec;
  spec.collectives = {&collective("all_gather"), &collective("reduce")};
  spec.sizes = {Bytes{1} << 20, Bytes{3} << 20};
  spec.dtypes = {&data_type("bfloat16")};
  spec.ops = {ReduceOp::max};
  spec.root = 1;
  spec.buffer_modes = {BufferMode::cuda_malloc, BufferMode::nccl_register};
  spec.launch_modes = {LaunchMode::graph};
  spec.footprints = {parse_footprint("exact"), parse_footprint("256M")};
  spec.cache_states = {CacheState::flush};
  spec.split = CommSplit{CommunicatorKind::stride, 2, 2};
  WorkerStart start;
  start.ranks = 4;
  start.spec = spec;
  start.plan = plan_measurements(spec, 4);
  start.plan.notes.push_back("a note");
  REQUIRE(start.plan.calls.size() > 8);
  const WorkerStart received = nlohmann::json::parse(nlohmann::json(start).dump()).get<WorkerStart>();
  REQUIRE(received.plan.calls.size() == start.plan.calls.size());
  for (std::size_t i = 0; i < start.plan.calls.size(); ++i) {
    const PlannedCall& sent = start.plan.calls[i];
    const PlannedCall& got = received.plan.calls[i];
    CHECK(got.call == sent.call);
    CHECK(got.reduces == sent.reduces);
    CHECK(got.requested_bytes == sent.requested_bytes);
    CHECK(got.total_bytes == sent.total_bytes);
    CHECK(got.footprint == sent.footprint);
    CHECK(got.split.label() == sent.split.label());
  }
  REQUIRE(received.plan.comms.size() == start.plan.comms.size());
  CHECK(received.plan.comms.front().label() == start.plan.comms.front().label());
  CHECK(received.plan.notes == start.plan.notes);
}

TEST_CASE("a config setting is parsed once, where the launch builds its points: the wire and the engine only copy it") {
  const ConfigSetting ctas = config_setting("max_ctas", "0x10");
  REQUIRE(ctas.field == find_config_field("max_ctas"));
  CHECK(ctas.number == 16);
  CHECK(ctas.value == "0x10");
  const ConfigSetting name = config_setting("comm_name", "sweep-a");
  CHECK_FALSE(name.number);
  CHECK(name.value == "sweep-a");
  CHECK_THROWS_WITH(config_setting("max_ctas", "8M"), ContainsSubstring("takes a whole number, not '8M'"));
  CHECK_THROWS_WITH(config_setting("max_ctas", "99999999999"), ContainsSubstring("takes a whole number"));
  CHECK_THROWS_WITH(config_setting("blocking", "0"), ContainsSubstring("'blocking' cannot be swept"));
  CHECK_THROWS_WITH(config_setting("max_ctaz", "8"), ContainsSubstring("'max_ctaz' cannot be swept"));
  // Through a worker's message it travels typed: the number as the launch parsed it, not
  // its text parsed again.
  const nlohmann::json sent = ctas;
  CHECK(sent.at("number") == 16);
  const ConfigSetting arrived = sent.get<ConfigSetting>();
  CHECK(arrived.field == ctas.field);
  CHECK(arrived.number == 16);
  CHECK(arrived.value == "0x10");
  CHECK_FALSE(nlohmann::json(name).get<ConfigSetting>().number);
  CHECK_THROWS_WITH(nlohmann::json({{"field", "max_ctaz"}, {"value", "8"}, {"number", 8}}).get<ConfigSetting>(),
                    ContainsSubstring("unknown config field 'max_ctaz'"));
}

TEST_CASE("a worker's start holds a plan of the most calls a plan may have, each at its longest") {
  PlannedCall longest;
  longest.call.kind = &collective("reduce_scatter");
  longest.call.dtype = &data_type("bfloat16");
  longest.call.op = ReduceOp::prod;
  longest.call.count = std::uint64_t{1} << 40;
  longest.call.root = 100000;
  longest.call.placement = Placement::out_of_place;
  longest.call.buffers = BufferMode::nccl_register;
  longest.call.launch = LaunchMode::blocking;
  longest.call.footprint_bytes = Bytes{16} << 30;
  longest.call.cache = CacheState::flush;
  longest.reduces = true;
  longest.requested_bytes = longest.total_bytes = Bytes{1} << 40;
  longest.footprint = {FootprintMode::fixed, Bytes{16} << 30};
  // A plan's text grows by the same length with each equal call, so its size at the cap
  // follows from two small plans (checked exact at a thousand calls) without writing
  // 100000 calls, which took 8 s of the sanitized unit tests.
  const auto plan_text_size = [&](std::size_t calls) {
    MeasurementPlan plan;
    plan.calls.assign(calls, longest);
    return nlohmann::json(plan).dump().size();
  };
  const std::size_t one = plan_text_size(1), per_call = plan_text_size(2) - one;
  const auto predicted = [&](std::uint64_t calls) { return one + (calls - 1) * per_call; };
  REQUIRE(plan_text_size(1000) == predicted(1000));
  // run refuses a plan over half a message (runtime/run_plan.cpp): the call cap must bite first.
  CHECK(predicted(kMaxPlannedCalls) <= kMaxMessageBytes / 2);
}
