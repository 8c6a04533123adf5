#include "engine/mpi/mpi_engine.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/pattern_spec.hpp"
#include "core/units.hpp"
#include "engine/call_buffers.hpp"
#include "engine/mpi/cpu_antagonist.hpp"
#include "engine/mpi/mpi_check.hpp"
#include "engine/overlap_window.hpp"

namespace ncclsweep {
namespace {

// MPI's own types for the dtypes it can reduce; MPI_DATATYPE_NULL for the rest.
MPI_Datatype reducible_type(const DataType& t) {
  switch (t.nccl_id) {
    case kNcclInt8: return MPI_INT8_T;
    case kNcclUint8: return MPI_UINT8_T;
    case kNcclInt32: return MPI_INT32_T;
    case kNcclUint32: return MPI_UINT32_T;
    case kNcclInt64: return MPI_INT64_T;
    case kNcclUint64: return MPI_UINT64_T;
    case kNcclFloat32: return MPI_FLOAT;
    case kNcclFloat64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::min: return MPI_MIN;
    default: return MPI_OP_NULL;
  }
}

int as_int_count(std::uint64_t n) {
  if (n > static_cast<std::uint64_t>(INT32_MAX)) {
    throw UsageError("the mpi engine cannot pass " + std::to_string(n) + " elements in one call (MPI counts are int)",
                     "use sizes below 2 GiB per rank with the mpi engine");
  }
  return static_cast<int>(n);
}

class MpiEngine final : public Engine {
 public:
  explicit MpiEngine(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
  }

  std::string_view name() const override { return "mpi"; }

  DeviceDescription device() const override {
    DeviceDescription d;
    d.gpu_name = "cpu (mpi engine)";
    return d;
  }

  // MPI_COMM_WORLD's duplicate already connects the ranks.
  void connect(const std::vector<ConfigSetting>& config) override {
    if (!config.empty()) throw UsageError("the mpi engine has no communicator config; '" + std::string(config.front().name()) +
                                          "' needs --engine nccl");
  }
  void disconnect() override { free_groups(); }
  ~MpiEngine() override { free_groups(); }

  void split(const std::vector<int>& colors) override {
    free_groups();
    for (const int color : colors) {
      MPI_Comm group = MPI_COMM_NULL;
      check_mpi(MPI_Comm_split(comm_, color, rank_, &group), "MPI_Comm_split");
      groups_.push_back(group);
    }
  }

  void slow_down(double factor) override { slow_factor_ = factor; }

  std::string unsupported_reason(const CollectiveCall& call) const override {
    return mpi_engine_unsupported_reason(*call.kind, *call.dtype, call.op, call.buffers, call.launch);
  }

  std::string compute_unsupported_reason(const ComputeLoad&) const override { return {}; }
  ComputeSite compute_site() const override { return ComputeSite::cpu_analogue; }

  double time_compute(const ComputeLoad& load, int count) override { return antagonist(load).run_alone(count); }

  OverlapTimes run_under_compute(const CollectiveCall& call, const ComputeLoad& load, int calls, int rounds) override {
    const View v = view(call);
    const Buffers b = prepare(call, v);
    CpuAntagonist& gemm = antagonist(load);
    std::vector<OverlapRound> timed;
    for (int r = 0; r < rounds; ++r) {
      OverlapRound round;
      round.calls = calls;
      round.compute_alone_s = gemm.run_alone(1);
      check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
      double start = MPI_Wtime();
      run_calls(call, b, v, calls);
      round.comm_alone_s = MPI_Wtime() - start;
      check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
      gemm.start();  // launched first: the collective never runs beside an idle core
      // The antagonist's intervals are on the steady clock; the window is put on it too.
      const double steady_offset = steady_seconds() - MPI_Wtime();
      start = MPI_Wtime();
      run_calls(call, b, v, calls);
      const double end = MPI_Wtime();
      round.gemms = gemm.stop();
      round.window = {start + steady_offset, end + steady_offset};
      timed.push_back(std::move(round));
    }
    return summarize_rounds(timed);
  }

  std::uint64_t run_checked(const CollectiveCall& call, bool corrupt) override {
    const View v = view(call);
    const Buffers b = prepare(call, v);
    const auto format = element_format(*call.dtype);
    for (std::uint64_t i = 0; i < b.output_elements; ++i) pattern::store(b.output, i, pattern::kPoison, format);
    const bool reduces = call.kind->reduces;
    for (std::uint64_t i = 0; i < b.input_elements; ++i) {
      pattern::store(b.input, i, pattern::input_value(reduces, v.rank, v.ranks, i, static_cast<int>(call.op)), format);
    }
    launch(call, b, v);
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
    const View v = view(call);
    const Buffers b = prepare(call, v);
    const bool flush = call.cache == CacheState::flush;
    check_mpi(MPI_Barrier(comm_), "MPI_Barrier");  // every rank, so all groups start together
    TimedIterations timed;
    timed.iteration_seconds.reserve(static_cast<std::size_t>(iters));
    // The testing aid: each call runs this many times more, on every rank of the group.
    const int repeat_calls = slow_factor_ > 1 ? static_cast<int>(std::lround(slow_factor_)) - 1 : 0;
    const double start = MPI_Wtime();
    double mark = start;
    for (int i = 0; i < iters; ++i) {
      if (flush) {
        flush_cache();  // outside the sample; the barrier lines the ranks up after it
        check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
        mark = MPI_Wtime();
      }
      for (int c = 0; c < calls_per_sample; ++c) {
        const Buffers at = b.at(b.span.offset_of(static_cast<std::uint64_t>(i) * calls_per_sample + c));
        launch(call, at, v);
        for (int extra = 0; extra < repeat_calls; ++extra) launch(call, at, v);
      }
      const double now = MPI_Wtime();
      timed.iteration_seconds.push_back(now - mark);
      timed.device_seconds += now - mark;
      mark = now;
    }
    timed.host_seconds = mark - start;  // the host is the device here; with flush, the flushes are in it
    return timed;
  }

 private:
  // The communicator a call runs on, and this rank's place in it.
  struct View {
    MPI_Comm comm;
    int rank;
    int ranks;
  };

  View view(const CollectiveCall& call) const {
    if (call.comm == 0) return {comm_, rank_, ranks_};
    if (call.comm < 0 || static_cast<std::size_t>(call.comm) > groups_.size()) {
      throw UsageError("internal: call on sub-communicator " + std::to_string(call.comm) + " before split");
    }
    View v{groups_[static_cast<std::size_t>(call.comm) - 1], 0, 1};
    MPI_Comm_rank(v.comm, &v.rank);
    MPI_Comm_size(v.comm, &v.ranks);
    return v;
  }

  static double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  void run_calls(const CollectiveCall& call, const CallBuffers& b, const View& v, int calls) {
    for (int c = 0; c < calls; ++c) launch(call, b.at(b.span.offset_of(static_cast<std::uint64_t>(c))), v);
  }

  // One antagonist per load, made on first use (its thread lives as long as the engine).
  CpuAntagonist& antagonist(const ComputeLoad& load) {
    if (!antagonist_ || antagonist_->load() != load) antagonist_ = std::make_unique<CpuAntagonist>(load);
    return *antagonist_;
  }

  void free_groups() {
    for (MPI_Comm& group : groups_) MPI_Comm_free(&group);
    groups_.clear();
  }

  // Where one call reads and writes, inside the buffers this engine owns.
  using Buffers = CallBuffers;

  Buffers prepare(const CollectiveCall& call, const View& v) {
    const CallSizes sizes = call_sizes(call, v.ranks);
    const std::size_t elem = sizes.element_bytes;
    const bool in_place = sizes.in_place;
    // Host buffers follow the same footprint rules as the GPU's (core/buffer_footprint.hpp).
    const BufferSpan span = buffer_span(in_place ? 0 : sizes.send_bytes(), sizes.recv_bytes(), call.footprint_bytes);
    allocate(send_, in_place ? 0 : span.send_bytes);
    allocate(recv_, span.recv_bytes);
    Buffers b = sizes.buffers_in(send_.data(), recv_.data(), span);
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

  // Exactly `bytes`, a fresh allocation when the size changes (the footprint is measured;
  // an in-place call leaves the send buffer as it is).
  // A failed allocation names the size and the fix; the rank is added where it is printed.
  static void allocate(std::vector<std::byte>& buffer, std::size_t bytes) {
    if (bytes == 0 || buffer.size() == bytes) return;
    buffer = {};  // the old buffer goes first: both at once may not fit
    try {
      buffer = std::vector<std::byte>(bytes);
    } catch (const std::bad_alloc&) {
      throw RuntimeFailure("host buffer allocation", "could not allocate " + format_bytes(bytes) +
                                                         " (fix: measure smaller sizes, use buffer_footprint: exact, or "
                                                         "run fewer ranks per host)");
    }
  }

  // --cache flush on host buffers: write a buffer larger than the last-level cache
  // (kFlushFactor x its size, as the GPU engine reads twice its L2), so the collective's
  // buffers are no longer cached.
  static constexpr std::size_t kFlushFactor = 2;
  void flush_cache() {
    if (flush_scratch_.empty()) {
      const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
      const std::size_t fallback = std::size_t(64) << 20;  // when the C library cannot say
      flush_scratch_.resize(kFlushFactor * (llc > 0 ? static_cast<std::size_t>(llc) : fallback));
    }
    ++flush_round_;
    for (std::size_t i = 0; i < flush_scratch_.size(); i += 64) flush_scratch_[i] = static_cast<std::byte>(flush_round_);
  }

  void launch(const CollectiveCall& call, const Buffers& b, const View& v) {
    const bool in_place = call.placement == Placement::in_place;
    const MPI_Datatype reduce_type = reducible_type(*call.dtype);
    const int count = as_int_count(call.count);
    const int bytes = as_int_count(call.count * call.dtype->bytes);
    void* send = in_place ? MPI_IN_PLACE : static_cast<void*>(b.send);
    switch (call.kind->layout) {
      case OutputLayout::gathered:
        check_mpi(MPI_Allgather(send, bytes, MPI_BYTE, b.recv, bytes, MPI_BYTE, v.comm), "MPI_Allgather");
        break;
      case OutputLayout::reduced_slice:
        check_mpi(MPI_Reduce_scatter_block(send, b.recv, count, reduce_type, mpi_op(call.op), v.comm),
                  "MPI_Reduce_scatter_block");
        break;
      case OutputLayout::reduced_whole:
        check_mpi(MPI_Allreduce(send, b.recv, count, reduce_type, mpi_op(call.op), v.comm), "MPI_Allreduce");
        break;
      case OutputLayout::reduced_at_root: {
        // MPI_IN_PLACE is the root's alone; other ranks pass their input as usual.
        void* reduce_send = in_place && v.rank != call.root ? static_cast<void*>(b.recv) : send;
        check_mpi(MPI_Reduce(reduce_send, b.recv, count, reduce_type, mpi_op(call.op), call.root, v.comm),
                  "MPI_Reduce");
        break;
      }
      case OutputLayout::from_root: {
        std::byte* buffer = (!in_place && v.rank == call.root) ? b.send : b.recv;
        check_mpi(MPI_Bcast(buffer, bytes, MPI_BYTE, call.root, v.comm), "MPI_Bcast");
        break;
      }
      case OutputLayout::transposed:
        check_mpi(MPI_Alltoall(b.send, bytes, MPI_BYTE, b.recv, bytes, MPI_BYTE, v.comm), "MPI_Alltoall");
        break;
      case OutputLayout::from_previous: {
        const int next = (v.rank + 1) % v.ranks, previous = (v.rank + v.ranks - 1) % v.ranks;
        check_mpi(MPI_Sendrecv(b.send, bytes, MPI_BYTE, next, 0, b.recv, bytes, MPI_BYTE, previous, 0, v.comm,
                               MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        break;
      }
    }
  }

  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  double slow_factor_ = 1;  // slow_down(): the testing aid's factor, in whole calls
  std::vector<MPI_Comm> groups_;  // from split(); freed by disconnect()
  std::vector<std::byte> send_, recv_;
  std::vector<std::byte> flush_scratch_;  // --cache flush; empty until first used
  unsigned flush_round_ = 0;
  std::unique_ptr<CpuAntagonist> antagonist_;  // --with-compute; null until first used
};

}  // namespace

std::unique_ptr<Engine> make_mpi_engine(MPI_Comm comm) { return std::make_unique<MpiEngine>(comm); }

}  // namespace ncclsweep
