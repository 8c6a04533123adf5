// Whole soaks (soak/soak_launch.hpp) on 4 hosts x 2 thread ranks with the paced engine
// (in_process_launch.hpp), windows of a tenth of a second: every window's figures are
// exact (the slow-down aid's factor is fixed at a window's start), so which host drifts
// or flaps, from which window, is judged without the band a loaded CPU needs. Only the
// windows' lengths follow the wall clock. What needs
// processes and real timing (mpirun's signals, the metrics parsed by prometheus_client)
// stays in tests/integration/test_soak_launch.cpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "in_process_launch.hpp"
#include "paced_engine.hpp"
#include "read_file.hpp"
#include "runtime/stop_signals.hpp"
#include "soak/soak_launch.hpp"
#include "thread_ranks.hpp"

using namespace ncclsweep;
using namespace ncclsweep::soak;
using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

std::vector<std::string> soak_hosts() {
  return {"h0", "h0", "h1", "h1", "h2", "h2", "h3", "h3"};
}

// Who shares each sub-communicator, from every rank's split: the thread ranks' engines
// record their colours, and a rank asking about its group waits until every rank has
// split as often as it has (they split at the same point of the loop).
class SplitBook {
 public:
  explicit SplitBook(int ranks) : colours_(static_cast<std::size_t>(ranks)), splits_(colours_.size(), 0) {}
  void record(int rank, const std::vector<int>& colours) {
    const std::lock_guard lock(mutex_);
    if (!first_split_) first_split_ = std::chrono::steady_clock::now();
    colours_[static_cast<std::size_t>(rank)] = colours;
    ++splits_[static_cast<std::size_t>(rank)];
    changed_.notify_all();
  }
  // Seconds since any rank's first split (the soak's host split, just before its warm-up):
  // one clock for every rank, so that a slow-down starts at one instant on all of them.
  // Ranks made their engines at moments apart by up to a window under load, and a host
  // whose ranks slowed a window before the others' read as that host's outlier.
  double seconds_since_first_split() {
    const std::lock_guard lock(mutex_);
    if (!first_split_) return 0;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - *first_split_).count();
  }
  // The world ranks of `rank`'s group on sub-communicator `comm` (1-based; 0: the world).
  std::vector<int> members(int rank, int comm) {
    std::vector<int> out;
    if (comm == 0) {
      for (int r = 0; r < static_cast<int>(colours_.size()); ++r) out.push_back(r);
      return out;
    }
    std::unique_lock lock(mutex_);
    const int mine = splits_[static_cast<std::size_t>(rank)];
    changed_.wait(lock, [&] { return std::all_of(splits_.begin(), splits_.end(), [&](int n) { return n >= mine; }); });
    const auto index = static_cast<std::size_t>(comm - 1);
    for (int r = 0; r < static_cast<int>(colours_.size()); ++r) {
      if (colours_[static_cast<std::size_t>(r)].at(index) == colours_[static_cast<std::size_t>(rank)].at(index)) out.push_back(r);
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::vector<int>> colours_;
  std::optional<std::chrono::steady_clock::time_point> first_split_;
  std::vector<int> splits_;
};

// A fault made outside the tool: calls on a communicator whose ranks span both ends of
// the link run `factor` times as long, from `from_s` after the first split; every
// other call is the paced engine's. A link between hosts slows the world too.
class SlowLinkEngine final : public Engine {
 public:
  SlowLinkEngine(SplitBook& book, int rank, std::set<int> end_a, std::set<int> end_b, double factor, double from_s)
      : book_(book), rank_(rank), a_(std::move(end_a)), b_(std::move(end_b)), factor_(factor), from_s_(from_s) {}
  std::string_view name() const override { return "mpi"; }
  DeviceDescription device() const override { return {}; }
  void connect(const std::vector<ConfigSetting>&) override {}
  void disconnect() override {}
  std::string unsupported_reason(const CollectiveCall&) const override { return {}; }
  std::uint64_t run_checked(const CollectiveCall&, bool) override { return 0; }
  void split(const std::vector<int>& colours) override { book_.record(rank_, colours); }
  void slow_down(double factor) override { aid_ = factor; }
  TimedIterations run_timed(const CollectiveCall& call, int samples, int calls_per_sample = 1) override {
    const double since = book_.seconds_since_first_split();
    bool crosses_a = false, crosses_b = false;
    for (const int r : book_.members(rank_, call.comm)) {
      crosses_a = crosses_a || a_.count(r) > 0;
      crosses_b = crosses_b || b_.count(r) > 0;
    }
    paced_.slow_down(aid_ * (since >= from_s_ && crosses_a && crosses_b ? factor_ : 1));
    return paced_.run_timed(call, samples, calls_per_sample);
  }

 private:
  SplitBook& book_;
  int rank_;
  std::set<int> a_, b_;
  double factor_, from_s_, aid_ = 1;
  PacedEngine paced_;
};

// A soak on `hosts` whose engines are made by `engine_for(rank)`.
std::vector<int> soak_with(const std::vector<std::string>& hosts, const SoakRequest& request,
                           const std::function<std::unique_ptr<Engine>(int rank)>& engine_for) {
  return run_ranks(hosts, [&](ThreadRank& rank) {
    const LaunchServices services{
        .make_engine = [&, r = rank.rank()](EngineKind) { return engine_for(r); },
        .received_signal = [] { return 0; },
    };
    return run_soak_launch(rank, request, services).status;
  });
}

SoakRequest paced_soak(const std::filesystem::path& dir, double duration_s, const std::string& fault = "") {
  SoakOptions options;
  options.window_s = 0.1;
  options.duration_s = duration_s;
  options.collectives = {&collective("all_reduce")};
  options.sizes = {64 * kKiB};
  options.warmup = 1;
  options.iters = 2;
  SoakRequest request;
  request.options = options;
  request.engine = EngineKind::mpi;
  request.fault = fault;
  request.output_dir = dir.string();
  return request;
}

// Each rank's status. stop_rank (>= 0) "receives" SIGTERM once `stop_after_s` have passed.
std::vector<int> soak_in_process(const SoakRequest& request, int stop_rank = -1, double stop_after_s = 0) {
  const auto start = std::chrono::steady_clock::now();
  return run_ranks(soak_hosts(), [&](ThreadRank& rank) {
    const LaunchServices services{
        .make_engine = [](EngineKind) { return std::unique_ptr<Engine>(std::make_unique<PacedEngine>()); },
        .received_signal =
            [&, stopped = rank.rank() == stop_rank] {
              const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
              return stopped && elapsed.count() >= stop_after_s ? SIGTERM : 0;
            },
        .workers = {},
    };
    return run_soak_launch(rank, request, services).status;
  });
}

json findings_in(const std::filesystem::path& dir) {
  return json::parse(read_file(dir / "run.json")).at("verdicts").at("findings");
}

std::set<std::string> hosts_named(const json& findings, const std::string& kind) {
  std::set<std::string> hosts;
  for (const json& f : findings) {
    if (f.at("kind") == kind && f.at("host") != "world") hosts.insert(f.at("host").get<std::string>());
  }
  return hosts;
}

}  // namespace

TEST_CASE("an in-process soak: a rank slowed from t=0.5 s drifts exactly its host, from the first slowed window") {
  const auto dir = fresh_dir("soak-drift");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 1.2, "5:slow=10@t=0.5")), kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  CHECK(hosts_named(findings, "drift") == std::set<std::string>{"h2"});
  // The first window that started at 0.5 s or later (a loaded machine stretches windows).
  int slowed = -1;
  for (const json& w : records_of(dir)) {
    if (slowed < 0 && w.at("testing_aid_slow_factors").at(5).get<double>() > 1) slowed = w.at("window").get<int>();
  }
  REQUIRE(slowed > 0);
  for (const json& f : findings) {
    if (f.at("kind") != "drift" || f.at("host") != "h2") continue;
    CHECK(f.at("first_window") == slowed);
    CHECK(f.at("step").get<double>() == Approx(-0.9).margin(0.02));  // a tenth of the level
  }
}

TEST_CASE("an in-process soak: a rank slowed 0.5 s in every second is a flap on its host, not a drift") {
  // Levels of five windows: a loaded machine stretches a window to twice its length, and
  // a level must still span several windows.
  const auto dir = fresh_dir("soak-flap");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 3.0, "3:slow=20@flap=0.5")), kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  CHECK(hosts_named(findings, "flap") == std::set<std::string>{"h1"});
  CHECK(hosts_named(findings, "drift").empty());
}

TEST_CASE("an in-process soak without a fault finds nothing") {
  const auto dir = fresh_dir("soak-clean");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 0.8)), kExitOk));
  CHECK(findings_in(dir).empty());
}

TEST_CASE("an in-process soak stopped on one rank ends after its window; --resume continues one timeline") {
  const auto dir = fresh_dir("soak-resume");
  CHECK(all_equal(soak_in_process(paced_soak(dir, 1.0), /*stop_rank=*/6, /*stop_after_s=*/0.25),
                  exit_status_for_signal(SIGTERM)));
  const std::vector<json> first = records_of(dir);
  REQUIRE(!first.empty());
  CHECK(first.back().at("end_s").get<double>() < 0.9);
  CHECK(json::parse(read_file(dir / "run.json")).at("launches").at(0).at("end") == "stopped");

  SoakRequest resume = paced_soak(dir, 1.0);
  resume.options.reset();  // a resume's options come from run.json
  resume.output_dir.clear();
  resume.resume_dir = dir.string();
  CHECK(all_equal(soak_in_process(resume), kExitOk));
  const std::vector<json> all = records_of(dir);
  REQUIRE(all.size() > first.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i].at("window") == static_cast<int>(i));  // none twice, none missing
    if (i > 0) CHECK(all[i].at("start_s").get<double>() == Approx(all[i - 1].at("end_s").get<double>()));
    CHECK(all[i].at("launch") == (i < first.size() ? 1 : 2));
  }
  CHECK(all.back().at("end_s").get<double>() >= 1.0);
}

TEST_CASE("an in-process soak of 4 hosts x 1 rank: a slowed rank's world drift is traced to its host, from its window") {
  // One rank a host: no host has a split of its own, so only the world's series moves.
  // The pairs traced after it name the host, from the window the world's drift starts in.
  const auto dir = fresh_dir("soak-trace-host");
  const std::vector<std::string> hosts{"h0", "h1", "h2", "h3"};
  CHECK(all_equal(soak_with(hosts, paced_soak(dir, 2.0, "2:slow=10@t=0.6"),
                            [](int) { return std::unique_ptr<Engine>(std::make_unique<PacedEngine>()); }),
                  kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  CHECK(hosts_named(findings, "drift") == std::set<std::string>{"h2"});
  int world_from = -1, host_from = -2;
  for (const json& f : findings) {
    if (f.at("kind") != "drift") continue;
    if (f.at("host") == "world") world_from = f.at("first_window").get<int>();
    if (f.at("host") == "h2") {
      host_from = f.at("first_window").get<int>();
      CHECK(f.at("hosts") == json{"h2"});
      CHECK_THAT(f.at("evidence").get<std::string>(), ContainsSubstring("traced by pair tests in windows"));
    }
  }
  int slowed = -1;
  for (const json& w : records_of(dir)) {
    if (slowed < 0 && w.at("testing_aid_slow_factors").at(2).get<double>() > 1) slowed = w.at("window").get<int>();
  }
  CHECK(world_from == slowed);
  CHECK(host_from == slowed);
  // Pairs were measured only after the world's drift was found, never before it.
  for (const json& w : records_of(dir)) {
    for (const json& f : w.at("figures")) {
      if (f.at("soak").at("scope") == "pair") CHECK(w.at("window").get<int>() > slowed);
    }
  }
}

TEST_CASE("an in-process soak with one link slowed half way through: a drift on that link, from its window") {
  // 4 hosts x 2 ranks; the link h1-h3 slowed 8-fold from 0.6 s by the engine, not the aid.
  const auto dir = fresh_dir("soak-trace-link");
  SplitBook book(8);
  const double from_s = 0.6;
  CHECK(all_equal(soak_with(soak_hosts(), paced_soak(dir, 2.0),
                            [&](int rank) {
                              return std::unique_ptr<Engine>(
                                  std::make_unique<SlowLinkEngine>(book, rank, std::set<int>{2, 3}, std::set<int>{6, 7}, 8, from_s));
                            }),
                  kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  int link_from = -1;
  for (const json& f : findings) {
    CHECK(f.at("host") != "h0");
    CHECK(f.at("host") != "h2");
    if (f.at("kind") == "drift" && f.at("host") == "h1-h3") {
      link_from = f.at("first_window").get<int>();
      CHECK(f.at("hosts") == json({"h1", "h3"}));
      CHECK_THAT(f.at("evidence").get<std::string>(), ContainsSubstring("fine with their other partners"));
    }
  }
  REQUIRE(link_from >= 0);
  // The drift starts in the window the link slowed in, or the one after (a window that
  // straddles the change holds both levels). The timeline starts a few milliseconds after
  // the engines' clock, hence the allowance.
  int first_slow = -1;
  for (const json& w : records_of(dir)) {
    if (first_slow < 0 && w.at("end_s").get<double>() > from_s - 0.02) first_slow = w.at("window").get<int>();
  }
  CHECK(link_from >= first_slow);
  CHECK(link_from <= first_slow + 1);
  // Neither end is named a slow host: each is fine with its other partners.
  CHECK(hosts_named(findings, "drift") == std::set<std::string>{"h1-h3"});
}

TEST_CASE("an in-process soak slowed everywhere alike: the world drifts and its trace names no host or link") {
  // Every call of every communicator 4-fold from 0.6 s: a spell of load, or the whole fabric.
  const auto dir = fresh_dir("soak-trace-everywhere");
  SplitBook book(8);
  CHECK(all_equal(soak_with(soak_hosts(), paced_soak(dir, 2.0),
                            [&](int rank) {
                              std::set<int> all{0, 1, 2, 3, 4, 5, 6, 7};
                              return std::unique_ptr<Engine>(std::make_unique<SlowLinkEngine>(book, rank, all, all, 4, 0.6));
                            }),
                  kExitFindings));
  const json findings = findings_in(dir);
  INFO(findings.dump(2));
  bool world = false;
  for (const json& f : findings) {
    CHECK(f.at("host") == "world");
    if (f.at("kind") == "drift") {
      world = true;
      CHECK_THAT(f.at("evidence").get<std::string>(), ContainsSubstring("name no host or link"));
    }
  }
  CHECK(world);
}

TEST_CASE("an in-process soak refuses a fault on a rank the launch lacks, or one that does not slow") {
  CHECK(all_equal(soak_in_process(paced_soak(fresh_dir("soak-rank-9"), 0.3, "9:slow=4")), kExitUsage));
  CHECK(all_equal(soak_in_process(paced_soak(fresh_dir("soak-sleep"), 0.3, "1:sleep=1")), kExitUsage));
}
