#include "in_process_launch.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <mutex>
#include <streambuf>

#include "paced_engine.hpp"
#include "plan/measurement_plan.hpp"
#include "thread_ranks.hpp"
#include "thread_workers.hpp"
#include "scratch.hpp"

extern char** environ;

using nlohmann::json;

namespace ncclsweep::testing {
namespace {

// What every rank writes to std::cerr during a launch, one write at a time.
class LockedCapture final : public std::streambuf {
 public:
  explicit LockedCapture(std::ostream& stream) : stream_(stream), previous_(stream.rdbuf(this)) {}
  ~LockedCapture() override { stream_.rdbuf(previous_); }
  std::string text() {
    const std::lock_guard lock(mutex_);
    return text_;
  }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const std::lock_guard lock(mutex_);
    text_.push_back(static_cast<char>(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::lock_guard lock(mutex_);
    text_.append(s, static_cast<std::size_t>(n));
    return n;
  }

 private:
  std::ostream& stream_;
  std::streambuf* previous_;
  std::mutex mutex_;
  std::string text_;
};

}  // namespace

RunSpec paced_spec(std::vector<Bytes> sizes) {
  RunSpec spec;
  spec.name = "in-process";
  spec.engine = EngineKind::mpi;
  spec.collectives = {&collective("all_reduce")};
  spec.sizes = std::move(sizes);
  spec.dtypes = {&data_type("float32")};
  spec.ops = {ReduceOp::sum};
  spec.warmup = 1;
  spec.iters = 3;
  return spec;
}

LaunchRequest paced_request(const RunSpec& spec, int ranks, const std::filesystem::path& dir) {
  LaunchRequest request;
  request.spec = spec;
  request.plan = plan_measurements(spec, ranks);
  request.groups = default_groups();
  request.output_dir = dir.string();
  request.progress = ProgressSetting::off;
  request.command_line = {"ncclsweep", "run"};
  request.envp = environ;
  return request;
}

LaunchRequest paced_resume(const RunSpec& spec, int ranks, const std::filesystem::path& dir) {
  LaunchRequest request = paced_request(spec, ranks, dir);
  request.output_dir.clear();
  request.resume_dir = dir.string();
  return request;
}

InProcessLaunch launch_in_process(const LaunchRequest& request, int ranks, int stop_rank, int stop_after,
                                  PacedTiming timing) {
  LockedCapture errors(std::cerr);
  std::mutex mutex;
  InProcessLaunch result;
  std::atomic<int> starts{0};
  result.statuses = run_ranks(ranks, [&](ThreadRank& rank) {
    std::atomic<int> signal{0};
    std::atomic<int> timed{0};  // counted here: the launch destroys its engines before it returns
    PacedClock clock;
    const bool is_stopped = rank.rank() == stop_rank;
    const std::uint64_t seed = timing.seed * 1000 + static_cast<std::uint64_t>(rank.rank());
    const auto paced = [&, is_stopped](const std::map<std::string, std::string>& environment) {
      auto engine = std::make_unique<PacedEngine>(environment, timing.noise, seed, &clock);
      engine->after_timed = [&, is_stopped](int batches) {
        ++timed;
        if (is_stopped && batches >= stop_after) signal = SIGTERM;
      };
      return std::unique_ptr<Engine>(std::move(engine));
    };
    const LaunchServices services{
        .make_engine = [&](EngineKind) { return paced({}); },
        .received_signal = [&signal] { return signal.load(); },
        .workers = thread_workers([&](const std::map<std::string, std::string>& environment,
                                      const WorkerStart&) { return paced(environment); },
                                  &starts),
    };
    const int status = run_launch(rank, request, services);
    const std::lock_guard lock(mutex);
    result.timed_batches += timed;
    if (rank.rank() == 0) result.paced_seconds = clock.seconds();
    return status;
  });
  result.worker_starts = starts;
  result.errors = errors.text();
  return result;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = ncclsweep::testing::scratch_root() / ("in-process-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<json> records_of(const std::filesystem::path& dir) {
  std::vector<json> out;
  std::ifstream in(dir / "records.jsonl");
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

std::multiset<std::string> keys_of(const std::vector<json>& records) {
  std::multiset<std::string> keys;
  for (const json& r : records) {
    keys.insert(r.at("collective").get<std::string>() + " " + std::to_string(r.at("size_bytes").get<std::uint64_t>()) +
                " " + r.at("placement").get<std::string>());
  }
  return keys;
}

bool all_equal(const std::vector<int>& statuses, int status) {
  return std::all_of(statuses.begin(), statuses.end(), [status](int s) { return s == status; });
}

}  // namespace ncclsweep::testing
