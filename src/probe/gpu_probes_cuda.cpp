// The GPU module's probes (doctor/gpu_module.hpp): tiny GPU work, map/unmap and the GPU
// under load, through CUDA, NCCL, cuBLAS and NVML.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/iteration_stats.hpp"
#include "core/units.hpp"
#include "doctor/nvml_reader.hpp"
#include "probe/gpu_probes.hpp"
#include "probe_kernels.hpp"

namespace ncclsweep::probe {

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point start) { return std::chrono::duration<double, std::micro>(Clock::now() - start).count(); }

// A failed CUDA, NCCL or cuBLAS call: the probe it belongs to is skipped with this text.
struct ProbeFailure {
  std::string what;
};
void cuda_ok(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw ProbeFailure{std::string(call) + ": " + cudaGetErrorString(status)};
}
void nccl_ok(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw ProbeFailure{std::string(call) + ": " + ncclGetErrorString(status)};
}
void cublas_ok(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw ProbeFailure{std::string(call) + ": cuBLAS status " + std::to_string(status)};
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void sync() const { cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize"); }
};
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
    cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  float ms() const {
    float t = 0;
    cuda_ok(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    return t;
  }
};
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { cuda_ok(cudaMalloc(&p, n), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};
struct PinnedBuffer {
  void* p = nullptr;
  explicit PinnedBuffer(std::size_t n) { cuda_ok(cudaHostAlloc(&p, n, cudaHostAllocDefault), "cudaHostAlloc"); }
  ~PinnedBuffer() { cudaFreeHost(p); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};
struct Communicator {  // one rank alone: its enqueue cost, not the network's
  ncclComm_t comm = nullptr;
  Communicator() {
    ncclUniqueId id;
    nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
    nccl_ok(ncclCommInitRank(&comm, 1, id, 0), "ncclCommInitRank");
  }
  ~Communicator() { ncclCommDestroy(comm); }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
};
struct Cublas {
  cublasHandle_t h = nullptr;
  Cublas() { cublas_ok(cublasCreate(&h), "cublasCreate"); }
  ~Cublas() { cublasDestroy(h); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
};

void launch_empty(cudaStream_t stream) {
  cuda_ok(cudaLaunchKernel(probe_empty_kernel(), dim3(1), dim3(1), nullptr, 0, stream), "cudaLaunchKernel");
}

// Runs `probe`; a failure inside becomes skipped records for `metrics`.
template <typename F>
void guarded(std::vector<ProbeRecord>& out, std::initializer_list<ProbeMetric> metrics, F&& probe) {
  try {
    for (auto& r : probe()) out.push_back(std::move(r));
  } catch (const ProbeFailure& failure) {
    for (const auto m : metrics) out.push_back(skipped(m, failure.what));
    cudaGetLastError();  // clear a non-sticky error for the next probe
  }
}

// Median over `repeats` of fn's microseconds.
template <typename F>
ProbeRecord timed(ProbeMetric metric, int repeats, const std::string& detail, F&& fn) {
  std::vector<double> us;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    fn();
    us.push_back(us_since(start));
  }
  return measured(metric, median_of(us), relative_spread(us), detail);
}

std::vector<ProbeRecord> small_work(const ProbeOptions& options) {
  constexpr int kCalls = 1000;
  Stream stream;
  for (int i = 0; i < 100; ++i) launch_empty(stream.s);  // warm up the launch path
  stream.sync();
  std::vector<ProbeRecord> out;
  // The enqueue alone is what case 1 is about: the time to the last launch's return.
  std::vector<double> per_launch;
  for (int r = 0; r < options.repeats; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < kCalls; ++i) launch_empty(stream.s);
    per_launch.push_back(us_since(start) / kCalls);
    stream.sync();
  }
  out.push_back(measured(ProbeMetric::kernel_launch_us, median_of(per_launch), relative_spread(per_launch),
                        "host time per cudaLaunchKernel of an empty kernel, no sync between"));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cuda_ok(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  launch_empty(stream.s);
  cuda_ok(cudaStreamEndCapture(stream.s, &graph), "cudaStreamEndCapture");
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  cuda_ok(made, "cudaGraphInstantiate");
  std::vector<double> per_graph;
  for (int r = 0; r < options.repeats; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < kCalls; ++i) {
      if (const cudaError_t status = cudaGraphLaunch(exec, stream.s); status != cudaSuccess) {
        cudaGraphExecDestroy(exec);
        cuda_ok(status, "cudaGraphLaunch");
      }
    }
    per_graph.push_back(us_since(start) / kCalls);
    stream.sync();
  }
  cudaGraphExecDestroy(exec);
  out.push_back(measured(ProbeMetric::graph_launch_us, median_of(per_graph), relative_spread(per_graph),
                         "host time per cudaGraphLaunch of a one-kernel graph"));
  std::vector<double> chain;
  for (int r = 0; r < options.repeats; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < kCalls; ++i) launch_empty(stream.s);
    stream.sync();
    chain.push_back(us_since(start) / kCalls);
  }
  out.push_back(measured(ProbeMetric::kernel_chain_us, median_of(chain), relative_spread(chain),
                         "per kernel, 1000 dependent empty kernels on one stream, end to end"));
  return out;
}

std::vector<ProbeRecord> tiny_collectives(const ProbeOptions& options) {
  Communicator comm;
  Stream stream;
  DeviceBuffer buffer(64 * 1024);
  std::vector<double> per_call;
  std::string detail = "host time per ncclAllReduce enqueue, 1-rank communicator:";
  for (const std::size_t bytes : {std::size_t{8}, std::size_t{1024}, std::size_t{65536}}) {
    for (int i = 0; i < 20; ++i) {
      nccl_ok(ncclAllReduce(buffer.p, buffer.p, bytes / 4, ncclFloat32, ncclSum, comm.comm, stream.s), "ncclAllReduce");
    }
    stream.sync();
    std::vector<double> these;
    for (int r = 0; r < options.repeats; ++r) {
      constexpr int kCalls = 200;
      const auto start = Clock::now();
      for (int i = 0; i < kCalls; ++i) {
        nccl_ok(ncclAllReduce(buffer.p, buffer.p, bytes / 4, ncclFloat32, ncclSum, comm.comm, stream.s), "ncclAllReduce");
      }
      these.push_back(us_since(start) / kCalls);
      stream.sync();
    }
    per_call.push_back(median_of(these));
    detail += " " + std::to_string(bytes) + " B " + std::to_string(per_call.back()).substr(0, 5) + " us;";
  }
  std::vector<ProbeRecord> out{measured(ProbeMetric::nccl_tiny_enqueue_us, median_of(per_call), relative_spread(per_call), detail)};
  out.push_back(timed(ProbeMetric::nccl_mem_register_us, options.repeats, "ncclMemAlloc + ncclCommRegister + "
                      "ncclCommDeregister + ncclMemFree of 2 MiB", [&] {
    void* p = nullptr;
    nccl_ok(ncclMemAlloc(&p, 2 * kMiB), "ncclMemAlloc");
    void* handle = nullptr;
    const ncclResult_t registered = ncclCommRegister(comm.comm, p, 2 * kMiB, &handle);
    if (registered == ncclSuccess) ncclCommDeregister(comm.comm, handle);
    ncclMemFree(p);
    nccl_ok(registered, "ncclCommRegister");
  }));
  return out;
}

std::vector<ProbeRecord> map_unmap(const ProbeOptions& options) {
  std::vector<ProbeRecord> out;
  for (const auto& [metric, bytes] : {std::pair{ProbeMetric::cuda_malloc_free_2mib_us, 2 * kMiB},
                                      std::pair{ProbeMetric::cuda_malloc_free_256mib_us, 256 * kMiB}}) {
    out.push_back(timed(metric, options.repeats, "cudaMalloc + cudaFree", [&, bytes = bytes] { DeviceBuffer b(bytes); }));
  }
  out.push_back(timed(ProbeMetric::cuda_host_alloc_free_64mib_us, options.repeats, "cudaHostAlloc + cudaFreeHost",
                      [&] { PinnedBuffer b(64 * kMiB); }));
  const std::size_t bytes = 64 * kMiB;
  void* host = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (host == MAP_FAILED) throw ProbeFailure{"mmap of 64 MiB failed"};
  std::memset(host, 1, bytes);
  try {
    out.push_back(timed(ProbeMetric::cuda_host_register_64mib_us, options.repeats,
                        "cudaHostRegister + cudaHostUnregister of touched memory", [&] {
      cuda_ok(cudaHostRegister(host, bytes, cudaHostRegisterDefault), "cudaHostRegister");
      cuda_ok(cudaHostUnregister(host), "cudaHostUnregister");
    }));
  } catch (...) {
    munmap(host, bytes);
    throw;
  }
  munmap(host, bytes);
  return out;
}

std::vector<ProbeRecord> copies(const ProbeOptions& options) {
  const std::size_t pcie_bytes = 256 * kMiB, hbm_bytes = 1024 * kMiB;
  Stream stream;
  EventPair events;
  PinnedBuffer host(pcie_bytes);
  DeviceBuffer device(hbm_bytes), other(hbm_bytes);
  const auto best_gbps = [&](std::size_t bytes, double counted, auto&& copy) {
    double best = 0;
    for (int r = 0; r < std::max(3, options.repeats / 4); ++r) {
      cuda_ok(cudaEventRecord(events.start, stream.s), "cudaEventRecord");
      copy();
      cuda_ok(cudaEventRecord(events.stop, stream.s), "cudaEventRecord");
      stream.sync();
      best = std::max(best, static_cast<double>(bytes) * counted / (events.ms() * 1e-3) * 1e-9);
    }
    return best;
  };
  const double h2d = best_gbps(pcie_bytes, 1, [&] {
    cuda_ok(cudaMemcpyAsync(device.p, host.p, pcie_bytes, cudaMemcpyHostToDevice, stream.s), "cudaMemcpyAsync");
  });
  const double d2h = best_gbps(pcie_bytes, 1, [&] {
    cuda_ok(cudaMemcpyAsync(host.p, device.p, pcie_bytes, cudaMemcpyDeviceToHost, stream.s), "cudaMemcpyAsync");
  });
  const double hbm = best_gbps(hbm_bytes, 2, [&] {
    cuda_ok(cudaMemcpyAsync(other.p, device.p, hbm_bytes, cudaMemcpyDeviceToDevice, stream.s), "cudaMemcpyAsync");
  });
  return {measured(ProbeMetric::h2d_pinned_gbps, h2d, 0, "256 MiB from cudaHostAlloc memory"),
          measured(ProbeMetric::d2h_pinned_gbps, d2h, 0, "256 MiB to cudaHostAlloc memory"),
          measured(ProbeMetric::hbm_copy_gbps, hbm, 0, "1 GiB device-to-device copy, bytes read + written")};
}

std::vector<ProbeRecord> gemm_under_load(const ProbeOptions& options, const std::string& bus_id) {
  constexpr int n = 8192;
  const std::size_t bytes = std::size_t{n} * n * sizeof(__nv_bfloat16);
  DeviceBuffer a(bytes), b(bytes), c(bytes);
  cuda_ok(cudaMemset(a.p, 0, bytes), "cudaMemset");
  cuda_ok(cudaMemset(b.p, 0, bytes), "cudaMemset");
  Stream stream;
  Cublas cublas;
  cublas_ok(cublasSetStream(cublas.h, stream.s), "cublasSetStream");
  const float alpha = 1, beta = 0;
  const auto gemm = [&] {
    cublas_ok(cublasGemmEx(cublas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.p, CUDA_R_16BF, n, b.p, CUDA_R_16BF, n,
                           &beta, c.p, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
  };
  for (int i = 0; i < 3; ++i) gemm();
  stream.sync();
  // NVML is read while the GEMMs run, from a second thread.
  const doctor::NvmlLibrary nvml;
  std::atomic<bool> running{true};
  std::vector<doctor::NvmlSample> samples;
  std::string nvml_why = nvml.unavailable_reason();
  std::thread sampler([&] {
    while (running.load()) {
      doctor::NvmlSample s;
      if (nvml.sample(bus_id, s, nvml_why)) samples.push_back(std::move(s));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  EventPair events;
  const double load_seconds = options.gemm_load_s;
  int iterations = 0;
  try {
    cuda_ok(cudaEventRecord(events.start, stream.s), "cudaEventRecord");
    const auto start = Clock::now();
    while (us_since(start) < load_seconds * 1e6) {
      for (int i = 0; i < 10; ++i, ++iterations) gemm();
      stream.sync();
    }
    cuda_ok(cudaEventRecord(events.stop, stream.s), "cudaEventRecord");
    stream.sync();
  } catch (...) {
    running = false;
    sampler.join();
    throw;
  }
  running = false;
  sampler.join();
  const double seconds = events.ms() * 1e-3;
  const double tflops = 2.0 * n * n * static_cast<double>(n) * iterations / seconds * 1e-12;
  std::vector<ProbeRecord> out{measured(ProbeMetric::gemm_bf16_tflops, tflops, 0,
                                        "cublasGemmEx bf16 8192^3, fp32 compute, " + std::to_string(iterations) + " calls")};
  if (samples.empty()) {
    for (const auto m : {ProbeMetric::gpu_sm_clock_under_load_mhz, ProbeMetric::gpu_power_under_load_w,
                         ProbeMetric::gpu_temperature_under_load_c, ProbeMetric::gpu_throttled_under_load,
                         ProbeMetric::pcie_link_gen_ratio, ProbeMetric::pcie_link_width_ratio}) {
      out.push_back(skipped(m, "NVML: " + nvml_why));
    }
    return out;
  }
  // Skip the first samples, taken while clocks were still rising.
  const std::size_t from = samples.size() > 4 ? samples.size() / 4 : 0;
  std::vector<double> clocks, power;
  int temperature = 0, gen = 0, width = 0;
  std::vector<std::string> reasons;
  const auto& last = samples.back();
  for (std::size_t i = from; i < samples.size(); ++i) {
    const auto& s = samples[i];
    clocks.push_back(s.sm_clock_mhz);
    power.push_back(s.power_w);
    temperature = std::max(temperature, s.temperature_c);
    gen = std::max(gen, s.pcie_gen);
    width = std::max(width, s.pcie_width);
    for (const auto& r : s.throttle_reasons) {
      if (doctor::throttle_slows_work(r) && std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
    }
  }
  std::string reason_text;
  for (const auto& r : reasons) reason_text += (reason_text.empty() ? "" : ",") + r;
  const std::string of = std::to_string(samples.size() - from) + " NVML samples during the GEMM";
  out.push_back(measured(ProbeMetric::gpu_sm_clock_under_load_mhz, median_of(clocks), relative_spread(clocks),
                         of + ", max " + std::to_string(last.sm_clock_max_mhz) + " MHz"));
  out.push_back(measured(ProbeMetric::gpu_power_under_load_w, median_of(power), relative_spread(power),
                         of + ", limit " + std::to_string(static_cast<int>(last.power_limit_w)) + " W"));
  out.push_back(measured(ProbeMetric::gpu_temperature_under_load_c, temperature, 0, of + ", the highest"));
  out.push_back(measured(ProbeMetric::gpu_throttled_under_load, reasons.empty() ? 0 : 1, 0,
                         reasons.empty() ? "no reason that slows work" : "throttle: " + reason_text));
  if (last.pcie_gen_max > 0) {
    out.push_back(measured(ProbeMetric::pcie_link_gen_ratio, static_cast<double>(gen) / last.pcie_gen_max, 0,
                           "gen " + std::to_string(gen) + " of " + std::to_string(last.pcie_gen_max)));
  } else {
    out.push_back(skipped(ProbeMetric::pcie_link_gen_ratio, "NVML gave no maximum PCIe generation"));
  }
  if (last.pcie_width_max > 0) {
    out.push_back(measured(ProbeMetric::pcie_link_width_ratio, static_cast<double>(width) / last.pcie_width_max, 0,
                           "x" + std::to_string(width) + " of x" + std::to_string(last.pcie_width_max)));
  } else {
    out.push_back(skipped(ProbeMetric::pcie_link_width_ratio, "NVML gave no maximum PCIe width"));
  }
  return out;
}

}  // namespace

extern "C" std::vector<ProbeRecord> ncclsweep_gpu_probes(const ProbeOptions& options, int local_rank) {
  int devices = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&devices); status != cudaSuccess || devices == 0) {
    return skipped_gpu_records(std::string("no GPU visible: ") +
                               (status != cudaSuccess ? cudaGetErrorString(status) : "CUDA sees 0 devices"));
  }
  const int device = local_rank % devices;
  char bus[32] = {};
  if (cudaSetDevice(device) != cudaSuccess || cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
    return skipped_gpu_records("cudaSetDevice(" + std::to_string(device) + ") failed");
  }
  std::vector<ProbeRecord> out;
  guarded(out, {ProbeMetric::kernel_launch_us, ProbeMetric::graph_launch_us, ProbeMetric::kernel_chain_us},
          [&] { return small_work(options); });
  guarded(out, {ProbeMetric::nccl_tiny_enqueue_us, ProbeMetric::nccl_mem_register_us},
          [&] { return tiny_collectives(options); });
  guarded(out, {ProbeMetric::cuda_malloc_free_2mib_us, ProbeMetric::cuda_malloc_free_256mib_us,
                ProbeMetric::cuda_host_alloc_free_64mib_us, ProbeMetric::cuda_host_register_64mib_us},
          [&] { return map_unmap(options); });
  guarded(out, {ProbeMetric::h2d_pinned_gbps, ProbeMetric::d2h_pinned_gbps, ProbeMetric::hbm_copy_gbps},
          [&] { return copies(options); });
  guarded(out, {ProbeMetric::gemm_bf16_tflops, ProbeMetric::gpu_sm_clock_under_load_mhz,
                ProbeMetric::gpu_power_under_load_w, ProbeMetric::gpu_temperature_under_load_c,
                ProbeMetric::gpu_throttled_under_load, ProbeMetric::pcie_link_gen_ratio,
                ProbeMetric::pcie_link_width_ratio},
          [&] { return gemm_under_load(options, bus); });
  for (auto& r : out) r.detail = r.detail.empty() ? std::string("GPU ") + bus : r.detail + "; GPU " + bus;
  cudaDeviceReset();  // `run --probe`: leave the GPU to the workers, as if never touched
  return out;
}

}  // namespace ncclsweep::probe
