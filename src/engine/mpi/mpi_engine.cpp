#include "engine/mpi/mpi_engine.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/host_cpu.hpp"
#include "core/pattern_spec.hpp"
#include "core/test_slowdown.hpp"
#include "engine/call_buffers.hpp"
#include "engine/mpi/cpu_antagonist.hpp"
#include "engine/mpi/mpi_fabric.hpp"
#include "engine/overlap_window.hpp"

extern char** environ;

namespace ncclsweep {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class MpiEngine final : public Engine {
 public:
  MpiEngine(std::unique_ptr<HostFabric> fabric, const std::map<std::string, std::string>& environment)
      : fabric_(std::move(fabric)),
        // Read here, once: the worker's start is this process's only chance to set them.
        slowdowns_(environment) {}

  std::string_view name() const override { return "mpi"; }

  DeviceDescription device() const override {
    DeviceDescription d;
    d.gpu_name = "cpu (mpi engine)";
    return d;
  }

  // The ranks' communicator already connects them.
  void connect(const std::vector<ConfigSetting>& config) override {
    if (!config.empty()) throw UsageError("the mpi engine has no communicator config; '" + std::string(config.front().name()) +
                                          "' needs --engine nccl");
  }
  void disconnect() override { fabric_->free_splits(); }

  // The testing aid's per-init variables, as NCCL reads NCCL_PROTO at each init.
  void init_environment(const std::map<std::string, std::string>& environment) override {
    slowdowns_.init(environment);
  }
  bool reads_process_environment() const override { return false; }
  std::optional<std::string> setting_in_effect(std::string_view variable) const override {
    return slowdowns_.value_of(variable);
  }

  void split(const std::vector<int>& colors) override { fabric_->split(colors); }

  void slow_down(double factor) override { slow_factor_ = factor; }

  std::string unsupported_reason(const CollectiveCall& call) const override {
    return mpi_engine_unsupported_reason(*call.kind, *call.dtype, call.op, call.buffers, call.launch);
  }

  std::string compute_unsupported_reason(const ComputeLoad&) const override { return {}; }
  ComputeSite compute_site() const override { return ComputeSite::cpu_analogue; }

  double time_compute(const ComputeLoad& load, int count) override { return antagonist(load).run_alone(count); }

  OverlapTimes run_under_compute(const CollectiveCall& call, const ComputeLoad& load, int calls, int rounds) override {
    const Buffers b = prepare(call);
    CpuAntagonist& gemm = antagonist(load);
    std::vector<OverlapRound> timed;
    for (int r = 0; r < rounds; ++r) {
      OverlapRound round;
      round.calls = calls;
      round.compute_alone_s = gemm.run_alone(1);
      fabric_->barrier();
      double start = steady_seconds();
      run_calls(call, b, calls);
      round.comm_alone_s = steady_seconds() - start;
      fabric_->barrier();
      gemm.start();  // launched first: the collective never runs beside an idle core
      start = steady_seconds();
      run_calls(call, b, calls);
      round.window = {start, steady_seconds()};  // the antagonist's intervals are on the steady clock too
      round.gemms = gemm.stop();
      timed.push_back(std::move(round));
    }
    return summarize_rounds(timed);
  }

  std::uint64_t run_checked(const CollectiveCall& call, bool corrupt) override {
    const HostFabric::Place v = fabric_->place(call.comm);
    const Buffers b = prepare(call);
    const auto format = element_format(*call.dtype);
    for (std::uint64_t i = 0; i < b.output_elements; ++i) pattern::store(b.output, i, pattern::kPoison, format);
    const bool reduces = call.kind->reduces;
    for (std::uint64_t i = 0; i < b.input_elements; ++i) {
      pattern::store(b.input, i, pattern::input_value(reduces, v.rank, v.ranks, i, static_cast<int>(call.op)), format);
    }
    fabric_->collective(call, b.send, b.recv);
    if (corrupt && b.output_elements > 0) pattern::store(b.output, 0, pattern::kPoison, format);
    const auto spec = check_spec(*call.kind, *call.dtype, call.op, call.count, v.rank, v.ranks, call.root);
    std::uint64_t wrong = 0;
    double expected = 0;
    for (std::uint64_t k = 0; k < b.output_elements; ++k) {
      if (!pattern::expected_output(spec, k, &expected)) break;
      if (!pattern::matches(pattern::load(b.output, k, format), expected, spec.op, format)) ++wrong;
    }
    return wrong;
  }

  TimedIterations run_timed(const CollectiveCall& call, int iters, int calls_per_sample) override {
    const Buffers b = prepare(call);
    const bool flush = call.cache == CacheState::flush;
    // The testing aids: each call runs this many times in all, on every rank of the group.
    const int runs = calls_per_run(call);
    fabric_->barrier();  // every rank, so all groups start together
    TimedIterations timed;
    timed.iteration_seconds.reserve(static_cast<std::size_t>(iters));
    const double start = steady_seconds();
    double mark = start;
    for (int i = 0; i < iters; ++i) {
      if (flush) {
        flush_cache();  // outside the sample; the barrier lines the ranks up after it
        fabric_->barrier();
        mark = steady_seconds();
      }
      for (int c = 0; c < calls_per_sample; ++c) {
        const Buffers at = b.at(b.span.offset_of(static_cast<std::uint64_t>(i) * calls_per_sample + c));
        for (int run = 0; run < runs; ++run) fabric_->collective(call, at.send, at.recv);
      }
      const double now = steady_seconds();
      timed.iteration_seconds.push_back(now - mark);
      timed.device_seconds += now - mark;
      mark = now;
    }
    timed.host_seconds = mark - start;  // the host is the device here; with flush, the flushes are in it
    return timed;
  }

 private:
  // Where one call reads and writes, inside the buffers the fabric holds.
  using Buffers = CallBuffers;

  // --inject-fault ...slow=F times the testing variables' factor at this call's size.
  int calls_per_run(const CollectiveCall& call) const {
    const int ranks = fabric_->place(call.comm).ranks;
    const Bytes total = total_bytes(*call.kind, call.count, ranks, call.dtype->bytes);
    const int fault = slow_factor_ > 1 ? static_cast<int>(std::lround(slow_factor_)) : 1;
    return fault * slowdowns_.factor_at(total);
  }

  void run_calls(const CollectiveCall& call, const CallBuffers& b, int calls) {
    for (int c = 0; c < calls; ++c) {
      const CallBuffers at = b.at(b.span.offset_of(static_cast<std::uint64_t>(c)));
      fabric_->collective(call, at.send, at.recv);
    }
  }

  // One antagonist per load, made on first use (its thread lives as long as the engine).
  CpuAntagonist& antagonist(const ComputeLoad& load) {
    if (!antagonist_ || antagonist_->load() != load) antagonist_ = std::make_unique<CpuAntagonist>(load);
    return *antagonist_;
  }

  Buffers prepare(const CollectiveCall& call) {
    const HostFabric::Place v = fabric_->place(call.comm);
    const CallSizes sizes = call_sizes(call, v.ranks);
    const std::size_t elem = sizes.element_bytes;
    const bool in_place = sizes.in_place;
    // Host buffers follow the same footprint rules as the GPU's (core/buffer_footprint.hpp).
    const BufferSpan span = buffer_span(in_place ? 0 : sizes.send_bytes(), sizes.recv_bytes(), call.footprint_bytes);
    const HostBuffers memory = fabric_->buffers(in_place ? 0 : span.send_bytes, span.recv_bytes);
    Buffers b = sizes.buffers_in(memory.send, memory.recv, span);
    if (in_place) {
      b.send = b.recv;
      // MPI_IN_PLACE: an allgather's own block sits at its rank's offset; every other
      // in-place collective reads the whole receive buffer and writes from its start.
      b.input = call.kind->layout == OutputLayout::gathered ? b.recv + v.rank * call.count * elem : b.recv;
    }
    if (call.kind->layout == OutputLayout::from_root && !in_place && v.rank == call.root) {
      b.output = b.send;  // MPI_Bcast has one buffer: the root's data never moves
    }
    return b;
  }

  // --cache flush on host buffers: write a buffer larger than the last-level cache, so
  // the collective's buffers are no longer cached.
  void flush_cache() {
    if (flush_scratch_.empty()) flush_scratch_.resize(host_cache_flush_bytes());
    ++flush_round_;
    for (std::size_t i = 0; i < flush_scratch_.size(); i += 64) flush_scratch_[i] = static_cast<std::byte>(flush_round_);
  }

  std::unique_ptr<HostFabric> fabric_;
  double slow_factor_ = 1;  // slow_down(): the fault's factor, in whole calls
  EngineTestSlowdowns slowdowns_;
  std::vector<std::byte> flush_scratch_;  // --cache flush; empty until first used
  unsigned flush_round_ = 0;
  std::unique_ptr<CpuAntagonist> antagonist_;  // --with-compute; null until first used
};

}  // namespace

std::unique_ptr<Engine> make_mpi_engine(std::unique_ptr<HostFabric> fabric,
                                        const std::map<std::string, std::string>& environment) {
  return std::make_unique<MpiEngine>(std::move(fabric), environment);
}

std::unique_ptr<Engine> make_mpi_engine(MPI_Comm comm, StallWatch* watch) {
  return make_mpi_engine(make_mpi_fabric(comm, watch), environment_map(environ));
}

}  // namespace ncclsweep
