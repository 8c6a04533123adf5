#include "engine/nccl/nccl_engine.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/pattern_spec.hpp"
#include "core/nccl_version.hpp"
#include "engine/nccl/communicator_retirement.hpp"
#include "engine/call_buffers.hpp"
#include "engine/nccl/apply_config.hpp"
#include "engine/nccl/cuda_handles.hpp"
#include "engine/nccl/gpu_clock_reader.hpp"
#include "engine/nccl/nccl_ids.hpp"
#include "engine/overlap_window.hpp"
#ifdef NCCLSWEEP_HAVE_CUBLAS
#include "engine/nccl/gemm_load.hpp"
#endif
#include "cache_flush.hpp"
#include "pattern_kernels.hpp"

namespace ncclsweep {
namespace {

class NcclEngine final : public Engine {
 public:
  explicit NcclEngine(Coordinator& coordinator)
      : coordinator_(coordinator), rank_(coordinator.rank()), ranks_(coordinator.size()) {
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    const bool have_gpu = status == cudaSuccess && devices > 0;
    if (!coordinator.all_ranks_agree(have_gpu)) {
      throw UsageError(have_gpu ? std::string("another rank sees no GPU")
                                : std::string("no GPU visible (") + cudaGetErrorString(status) + ")",
                       "run on a machine with GPUs, or use --engine mpi");
    }
    device_.gpu_index = coordinator.local_rank() % devices;
    check_cuda(cudaSetDevice(device_.gpu_index), "cudaSetDevice");
    describe_device();
    // Created only now, after cudaSetDevice, so every handle lives on this rank's GPU.
    gpu_ = std::make_unique<GpuResources>();
    clocks_ = std::make_unique<GpuClockReader>(device_.pci_bus_id);
    retirement_ = std::make_unique<CommunicatorRetirement>(device_.gpu_index);
  }

  void connect(const std::vector<ConfigSetting>& config) override {
    disconnect();
    // The strings netName and commName point into `config`, which outlives the init.
    ncclConfig_t nccl_config = NCCL_CONFIG_INITIALIZER;
    for (const ConfigSetting& setting : config) apply_config_field(setting, nccl_config);
    ncclUniqueId id{};  // a fresh id for every communicator
    if (rank_ == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    coordinator_.broadcast(std::as_writable_bytes(std::span(&id, 1)), 0);
    comm_ = std::make_unique<Communicator>(ranks_, id, rank_, nccl_config);
  }

  // The communicators are destroyed on a thread (communicator_retirement.hpp says why);
  // run_timed waits for that, so the next point's init and check overlap it instead.
  void disconnect() override {
    if (!comm_) return;
    gpu_->stream.synchronize();
    release_comm_resources();
    std::vector<std::unique_ptr<Communicator>> finished = std::move(groups_);  // sub-communicators first
    groups_.clear();
    finished.push_back(std::move(comm_));
    retirement_->retire(std::move(finished));
  }

  void settle() override { retirement_->wait(); }

  // ncclCommSplit after init: one sub-communicator per colour set, inheriting the
  // parent's config (config is per communicator: docs/nccl-settings.md).
  void split(const std::vector<int>& colors) override {
    if (!comm_) throw UsageError("internal: split before connect");
    groups_.clear();
    for (const int color : colors) groups_.push_back(std::make_unique<Communicator>(*comm_, color, rank_));
  }

  ~NcclEngine() override {
    // Outstanding work must end before buffers and the communicator go.
    if (gpu_) cudaStreamSynchronize(gpu_->stream.get());
    release_comm_resources();
    groups_.clear();
    comm_.reset();
    if (retirement_) retirement_->wait();
  }

  std::string_view name() const override { return "nccl"; }
  DeviceDescription device() const override { return device_; }

  std::string unsupported_reason(const CollectiveCall& call) const override {
    if (call.dtype->nccl_id >= ncclNumTypes) {
      return std::string(call.dtype->name) + " needs a newer NCCL than " + device_.nccl_library_version;
    }
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 27, 0)
    if (call.buffers == BufferMode::nccl_window) return "buffer mode nccl-window needs NCCL 2.27 or later";
#endif
    return {};
  }

  std::optional<GpuClocks> read_clocks() override { return clocks_->read(); }

#ifdef NCCLSWEEP_HAVE_CUBLAS
  std::string compute_unsupported_reason(const ComputeLoad&) const override { return {}; }

  double time_compute(const ComputeLoad& load, int count) override { return gemm(load).alone_seconds(count); }

  // docs/overlap.md: per round, GEMMs alone, the calls alone, then the GEMM stream
  // started first and kept busy while the calls run; the collective's stream waits for
  // the first GEMM to start, so no call runs on an idle GPU.
  OverlapTimes run_under_compute(const CollectiveCall& call, const ComputeLoad& load, int calls, int rounds) override {
    settle();
    const View v = view(call);
    const Buffers b = prepare(call, v);
    GemmLoad& g = gemm(load);
    constexpr int kPlainLoop = 10, kAhead = 2;
    const double plain = g.plain_loop_seconds(kPlainLoop);
    while (gpu_->marks.size() < 2) gpu_->marks.push_back(std::make_unique<Event>());
    const cudaEvent_t begin = gpu_->marks[0]->get(), end = gpu_->marks[1]->get();
    cudaStream_t s = gpu_->stream.get();
    const auto run_calls = [&] {
      for (int c = 0; c < calls; ++c) launch(call, b.at(b.span.offset_of(static_cast<std::uint64_t>(c))), v);
    };
    std::vector<OverlapRound> timed;
    for (int r = 0; r < rounds; ++r) {
      OverlapRound round;
      round.calls = calls;
      round.compute_alone_s = g.alone_seconds(kAhead);
      barrier();
      check_cuda(cudaEventRecord(begin, s), "cudaEventRecord");
      run_calls();
      check_cuda(cudaEventRecord(end, s), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(end), "cudaEventSynchronize");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
      round.comm_alone_s = ms / 1e3;
      barrier();
      g.start(kAhead);
      check_cuda(cudaStreamWaitEvent(s, g.first_started(), 0), "cudaStreamWaitEvent");
      check_cuda(cudaEventRecord(begin, s), "cudaEventRecord");
      run_calls();
      check_cuda(cudaEventRecord(end, s), "cudaEventRecord");
      round.gemms = g.keep_busy_until(begin, end, round.window);
      timed.push_back(std::move(round));
    }
    OverlapTimes t = summarize_rounds(timed);
    t.plain_loop_s = plain;
    return t;
  }
#else
  std::string compute_unsupported_reason(const ComputeLoad&) const override {
    return "this ncclsweep was built without cuBLAS, which the nccl engine's compute load needs";
  }
#endif

  std::uint64_t run_checked(const CollectiveCall& call, bool corrupt) override {
    const View v = view(call);
    const Buffers b = prepare(call, v);
    const auto format = element_format(*call.dtype);
    cudaStream_t s = gpu_->stream.get();
    check_cuda(kernels::fill_value(b.output, b.output_elements, format, pattern::kPoison, s), "fill kernel");
    check_cuda(kernels::fill_input(b.input, b.input_elements, format, call.kind->reduces, v.rank, v.ranks,
                                   static_cast<int>(call.op), s),
               "fill kernel");
    // The checked call goes the way the timed ones do: a graph replay is checked as one.
    if (call.launch == LaunchMode::graph) {
      graph_for(call, b, v, 1).launch(s);
    } else {
      launch(call, b, v);
    }
    if (corrupt && b.output_elements > 0) {
      check_cuda(kernels::fill_value(b.output, 1, format, pattern::kPoison, s), "fill kernel");
    }
    check_cuda(cudaMemsetAsync(gpu_->counter.data(), 0, sizeof(unsigned long long), s), "cudaMemsetAsync");
    const auto spec = check_spec(*call.kind, *call.dtype, call.op, call.count, v.rank, v.ranks, call.root);
    check_cuda(kernels::count_wrong(b.output, b.output_elements, format, spec,
                                    reinterpret_cast<unsigned long long*>(gpu_->counter.data()), s),
               "check kernel");
    check_cuda(cudaMemcpyAsync(gpu_->wrong.get(), gpu_->counter.data(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, s),
               "cudaMemcpyAsync");
    gpu_->stream.synchronize();
    return *gpu_->wrong.get();
  }

  TimedIterations run_timed(const CollectiveCall& call, int iters, int calls_per_sample) override {
    settle();  // no timed call overlaps an earlier communicator's teardown
    if (iters <= 0) return {};
    const View v = view(call);
    const Buffers b = prepare(call, v);
    // Graph mode: the sample's calls captured once (before the barrier: capture runs nothing).
    const GraphExec* graph = call.launch == LaunchMode::graph ? &graph_for(call, b, v, calls_per_sample) : nullptr;
    const bool blocking = call.launch == LaunchMode::blocking;
    const bool flush = call.cache == CacheState::flush;
    if (flush) prepare_flush();
    barrier();  // on the world communicator, so every group starts together
    const auto host_start = std::chrono::steady_clock::now();
    // Warm: event i marks the start of sample i and the end of sample i-1, one event per
    // boundary, so the per-sample times add up to the total exactly. Flush: each sample
    // has its own pair, and the flush runs between them, outside every timed region.
    const std::size_t samples = static_cast<std::size_t>(iters);
    const auto start_mark = [&](std::size_t i) { return flush ? 2 * i : i; };
    const auto end_mark = [&](std::size_t i) { return flush ? 2 * i + 1 : i + 1; };
    while (gpu_->marks.size() < end_mark(samples - 1) + 1) gpu_->marks.push_back(std::make_unique<Event>());
    cudaStream_t s = gpu_->stream.get();
    for (std::size_t i = 0; i < samples; ++i) {
      if (flush) flush_cache();
      if (flush || i == 0) check_cuda(cudaEventRecord(gpu_->marks[start_mark(i)]->get(), s), "cudaEventRecord");
      if (graph) {
        graph->launch(s);
      } else {
        for (int c = 0; c < calls_per_sample; ++c) {
          // Call k of the batch at its rotation offset (nccl-tests' iteration shift).
          launch(call, b.at(b.span.offset_of(i * static_cast<std::size_t>(calls_per_sample) + c)), v);
          if (blocking) gpu_->stream.synchronize();  // as nccl-tests -z 1
        }
      }
      check_cuda(cudaEventRecord(gpu_->marks[end_mark(i)]->get(), s), "cudaEventRecord");
    }
    const cudaEvent_t last = gpu_->marks[end_mark(samples - 1)]->get();
    check_cuda(cudaEventSynchronize(last), "cudaEventSynchronize");
    const std::chrono::duration<double> host = std::chrono::steady_clock::now() - host_start;
    TimedIterations timed;
    timed.host_seconds = host.count();  // with flush, the flushes are in it: docs/performance.md
    timed.iteration_seconds.reserve(samples);
    for (std::size_t i = 0; i < samples; ++i) {
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, gpu_->marks[start_mark(i)]->get(), gpu_->marks[end_mark(i)]->get()),
                 "cudaEventElapsedTime");
      timed.iteration_seconds.push_back(ms / 1e3);
    }
    if (flush) {
      for (const double sample : timed.iteration_seconds) timed.device_seconds += sample;
    } else {
      float total_ms = 0;
      check_cuda(cudaEventElapsedTime(&total_ms, gpu_->marks[0]->get(), last), "cudaEventElapsedTime");
      timed.device_seconds = total_ms / 1e3;
    }
    return timed;
  }

 private:
  // The communicator a call runs on, and this rank's place in it.
  struct View {
    ncclComm_t comm;
    int rank;
    int ranks;
  };

  View view(const CollectiveCall& call) const {
    if (call.comm == 0) return {comm_->get(), rank_, ranks_};
    if (call.comm < 0 || static_cast<std::size_t>(call.comm) > groups_.size()) {
      throw UsageError("internal: call on sub-communicator " + std::to_string(call.comm) + " before split");
    }
    View v{groups_[static_cast<std::size_t>(call.comm) - 1]->get(), 0, 1};
    check_nccl(ncclCommUserRank(v.comm, &v.rank), "ncclCommUserRank", v.comm);
    check_nccl(ncclCommCount(v.comm, &v.ranks), "ncclCommCount", v.comm);
    return v;
  }

  using Buffers = CallBuffers;

  // Buffers of the call's footprint (core/buffer_footprint.hpp): exactly that much, so a
  // record's footprint is what was allocated, and nothing larger is kept from before.
  Buffers prepare(const CollectiveCall& call, const View& v) {
    const CallSizes sizes = call_sizes(call, v.ranks);
    const std::size_t elem = sizes.element_bytes;
    const bool in_place = sizes.in_place;
    const bool nccl_memory = call.buffers != BufferMode::cuda_malloc;
    DeviceBuffer& send = nccl_memory ? gpu_->nccl_send : gpu_->send;
    DeviceBuffer& recv = nccl_memory ? gpu_->nccl_recv : gpu_->recv;
    const BufferSpan span = buffer_span(sizes.send_bytes(), sizes.recv_bytes(), call.footprint_bytes);
    const std::size_t send_bytes = std::max<std::size_t>(span.send_bytes, 1);
    const std::size_t recv_bytes = std::max<std::size_t>(span.recv_bytes, 1);
    if (send.would_resize(send_bytes) || recv.would_resize(recv_bytes)) {
      // Graphs and registrations refer to the memory about to be freed: they go first.
      graph_.reset();
      if (nccl_memory) registrations_.clear();
    }
    send.resize(send_bytes);
    recv.resize(recv_bytes);
    if (nccl_memory) register_buffers(v.comm, call.buffers == BufferMode::nccl_window);
    Buffers b = sizes.buffers_in(send.data(), recv.data(), span);
    if (in_place) {
      // NCCL's in-place conventions: an allgather's input is its rank's block of the
      // output; a reduce-scatter's output is its rank's block of the input.
      const std::size_t block = static_cast<std::size_t>(v.rank) * call.count * elem;
      b.send = b.input = b.recv + (call.kind->layout == OutputLayout::gathered ? block : 0);
      b.output = b.recv + (call.kind->layout == OutputLayout::reduced_slice ? block : 0);
      if (call.kind->layout == OutputLayout::reduced_slice) b.recv = b.output;
    }
    return b;
  }

  // ncclMemAlloc'd buffers registered with `comm` once, as plain registrations or as
  // symmetric windows (one kind at a time: switching drops the other, on every rank alike).
  void register_buffers(ncclComm_t comm, bool window) {
    if (!registrations_.empty() && registered_as_window_ != window) registrations_.clear();
    registered_as_window_ = window;
    for (const auto& r : registrations_) {
      if (r.comm == comm) return;
    }
    Registration r{comm, {}};
    r.buffers.push_back(std::make_unique<BufferRegistration>(comm, gpu_->nccl_send.data(), gpu_->nccl_send.capacity(), window));
    r.buffers.push_back(std::make_unique<BufferRegistration>(comm, gpu_->nccl_recv.data(), gpu_->nccl_recv.capacity(), window));
    registrations_.push_back(std::move(r));
  }

  // The graph of `calls` launches of `call`, captured on first use and kept while the same
  // call on the same buffers comes back (warm-up, then each batch of samples).
  const GraphExec& graph_for(const CollectiveCall& call, const Buffers& b, const View& v, int calls) {
    const GraphKey key{call, b.send, b.recv, calls};
    if (graph_ && key == graph_key_) return *graph_;
    // A global-mode capture refuses other threads' unsafe CUDA calls, such as those of a
    // communicator being destroyed: that teardown ends first.
    settle();
    graph_.reset();
    gpu_->stream.synchronize();  // capture starts on an idle stream
    graph_ = std::make_unique<GraphExec>(gpu_->stream.get(), [&] {
      // The sample's calls at their rotation offsets; every replay repeats them.
      for (int c = 0; c < calls; ++c) launch(call, b.at(b.span.offset_of(static_cast<std::uint64_t>(c))), v);
    });
    graph_key_ = key;
    return *graph_;
  }

  // What refers to the communicators: graphs and registrations go before them.
  void release_comm_resources() {
    graph_.reset();
    graph_key_ = {};
    registrations_.clear();
  }

  void launch(const CollectiveCall& call, const Buffers& b, const View& v) {
    const auto type = static_cast<ncclDataType_t>(call.dtype->nccl_id);
    const auto op = static_cast<ncclRedOp_t>(nccl_id(call.op));
    const size_t n = call.count;
    ncclComm_t c = v.comm;
    cudaStream_t s = gpu_->stream.get();
    switch (call.kind->layout) {
      case OutputLayout::gathered:
        check_nccl(ncclAllGather(b.send, b.recv, n, type, c, s), "ncclAllGather", c);
        break;
      case OutputLayout::reduced_slice:
        check_nccl(ncclReduceScatter(b.send, b.recv, n, type, op, c, s), "ncclReduceScatter", c);
        break;
      case OutputLayout::reduced_whole:
        check_nccl(ncclAllReduce(b.send, b.recv, n, type, op, c, s), "ncclAllReduce", c);
        break;
      case OutputLayout::reduced_at_root:
        check_nccl(ncclReduce(b.send, b.recv, n, type, op, call.root, c, s), "ncclReduce", c);
        break;
      case OutputLayout::from_root:
        check_nccl(ncclBroadcast(b.send, b.recv, n, type, call.root, c, s), "ncclBroadcast", c);
        break;
      case OutputLayout::transposed:
        check_nccl(ncclAlltoAll(b.send, b.recv, n, type, c, s), "ncclAlltoAll", c);
        break;
      case OutputLayout::from_previous: {
        const int next = (v.rank + 1) % v.ranks, previous = (v.rank + v.ranks - 1) % v.ranks;
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        check_nccl(ncclSend(b.send, n, type, next, c, s), "ncclSend", c);
        check_nccl(ncclRecv(b.recv, n, type, previous, c, s), "ncclRecv", c);
        check_nccl(ncclGroupEnd(), "ncclGroupEnd", c);
        break;
      }
    }
  }

  // The scratch the cache flush reads: kFlushFactor x the L2 size, allocated once.
  // Twice: Hopper's L2 is two partitions that may each hold a copy of a line, and its
  // replacement is not strict LRU, so reading exactly one L2's worth can leave lines behind.
  static constexpr std::size_t kFlushFactor = 2;
  void prepare_flush() {
    if (gpu_->flush_scratch.capacity() > 0) return;
    int l2_bytes = 0;
    check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device_.gpu_index), "cudaDeviceGetAttribute");
    const std::size_t bytes = std::max<std::size_t>(kFlushFactor * static_cast<std::size_t>(l2_bytes), std::size_t(1) << 20);
    gpu_->flush_scratch.reserve(bytes);
    check_cuda(cudaMemsetAsync(gpu_->flush_scratch.data(), 0, bytes, gpu_->stream.get()), "cudaMemsetAsync");
    gpu_->stream.synchronize();
  }

  // Before a timed sample: evict the buffers from L2, then line the ranks up again on the
  // device (the flush takes a little longer on one GPU than another, and that skew would
  // otherwise be timed as the collective waiting for its peers).
  void flush_cache() {
    cudaStream_t s = gpu_->stream.get();
    check_cuda(kernels::read_through(gpu_->flush_scratch.data(), gpu_->flush_scratch.capacity(),
                                     reinterpret_cast<unsigned long long*>(gpu_->counter.data()), s),
               "cache flush kernel");
    check_nccl(ncclAllReduce(gpu_->barrier.data(), gpu_->barrier.data(), 1, ncclFloat32, ncclSum, comm_->get(), s),
               "ncclAllReduce", comm_->get());
  }

  // Lines the ranks up before timing: a one-element allreduce, then wait for it.
#ifdef NCCLSWEEP_HAVE_CUBLAS
  // One load per shape and dtype, made on first use on this rank's GPU.
  GemmLoad& gemm(const ComputeLoad& load) {
    if (!gemm_ || gemm_->load() != load) gemm_ = std::make_unique<GemmLoad>(load);
    return *gemm_;
  }
#endif

  void barrier() {
    check_nccl(ncclAllReduce(gpu_->barrier.data(), gpu_->barrier.data(), 1, ncclFloat32, ncclSum, comm_->get(), gpu_->stream.get()),
               "ncclAllReduce", comm_->get());
    gpu_->stream.synchronize();
  }

  void describe_device() {
    cudaDeviceProp props{};
    check_cuda(cudaGetDeviceProperties(&props, device_.gpu_index), "cudaGetDeviceProperties");
    device_.gpu_name = props.name;
    std::array<char, 32> bus{};
    check_cuda(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), device_.gpu_index),
               "cudaDeviceGetPCIBusId");
    device_.pci_bus_id = bus.data();
    int mode = cudaComputeModeDefault;
    check_cuda(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device_.gpu_index), "cudaDeviceGetAttribute");
    device_.exclusive_process = mode == cudaComputeModeExclusiveProcess;
    int driver = 0, runtime = 0, nccl = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    check_nccl(ncclGetVersion(&nccl), "ncclGetVersion");
    device_.driver_version = cuda_version_text(driver);
    device_.cuda_runtime_version = cuda_version_text(runtime);
    device_.nccl_header_version = nccl_version_text(NCCL_VERSION_CODE);
    device_.nccl_library_version = nccl_version_text(nccl);
  }

  struct GpuResources {
    GpuResources() {
      barrier.reserve(sizeof(float));
      counter.reserve(sizeof(unsigned long long));
    }
    Stream stream;
    std::vector<std::unique_ptr<Event>> marks;  // iteration boundaries; grows to the longest batch
    DeviceBuffer send, recv, barrier, counter;
    DeviceBuffer flush_scratch;  // --cache flush: read between samples; empty until first used
    // The nccl-register and nccl-window modes' buffers (ncclMemAlloc), kept apart so a
    // sweep over modes does not reallocate at every switch.
    DeviceBuffer nccl_send{DeviceBuffer::Allocator::nccl}, nccl_recv{DeviceBuffer::Allocator::nccl};
    PinnedCounter wrong;
  };

  Coordinator& coordinator_;
  int rank_, ranks_;
  DeviceDescription device_;
  std::unique_ptr<GpuResources> gpu_;     // lives as long as the engine: buffers are reused
#ifdef NCCLSWEEP_HAVE_CUBLAS
  std::unique_ptr<GemmLoad> gemm_;  // --with-compute; null until first used
#endif
  std::unique_ptr<Communicator> comm_;    // one per connect()
  std::vector<std::unique_ptr<Communicator>> groups_;  // split() of comm_; call.comm - 1 indexes it
  struct Registration {
    ncclComm_t comm;
    std::vector<std::unique_ptr<BufferRegistration>> buffers;  // nccl_send, nccl_recv
  };
  std::vector<Registration> registrations_;  // per communicator that ran a registered mode
  bool registered_as_window_ = false;
  std::unique_ptr<GraphExec> graph_;  // graph mode: the last captured sample
  // What a captured graph replays: the call, on these buffers, this many times.
  struct GraphKey {
    CollectiveCall call{};
    const void* send = nullptr;
    const void* recv = nullptr;
    int calls = 0;
    bool operator==(const GraphKey&) const = default;
  };
  GraphKey graph_key_;
  std::unique_ptr<GpuClockReader> clocks_;
  std::unique_ptr<CommunicatorRetirement> retirement_;  // earlier points' communicators, going
};

}  // namespace

extern "C" std::unique_ptr<Engine> ncclsweep_gpu_nccl_engine(Coordinator& coordinator) {
  return std::make_unique<NcclEngine>(coordinator);
}

}  // namespace ncclsweep

