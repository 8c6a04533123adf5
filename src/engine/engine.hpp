#pragma once
// An engine runs one collective call on buffers it owns, and times repetitions of it.
// Everything else (sizes, statistics, output) is shared by all engines.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/collective.hpp"
#include "core/compute_load.hpp"
#include "core/dtype.hpp"
#include "core/gpu_clocks.hpp"
#include "spec/config_fields.hpp"

namespace ncclsweep {

struct CollectiveCall {
  const CollectiveKind* kind;
  const DataType* dtype;
  ReduceOp op = ReduceOp::sum;
  std::uint64_t count = 0;  // per rank, as passed to the call
  int root = 0;
  Placement placement = Placement::out_of_place;
  int comm = 0;  // 0: the world communicator; i: the i-th sub-communicator of Engine::split
  BufferMode buffers = BufferMode::cuda_malloc;
  LaunchMode launch = LaunchMode::stream;
  // Bytes each buffer spans (core/buffer_footprint.hpp); 0: exactly what the call needs.
  // Larger than the call: call k of a batch runs at offset (k mod (footprint / call)) x call.
  Bytes footprint_bytes = 0;
  CacheState cache = CacheState::warm;
  bool operator==(const CollectiveCall&) const = default;
};

// Two clocks over the same iterations. The device clock (CUDA events on the
// collective's stream) is the measurement; the host clock (launch of the first call
// to the return of the wait for the last, as nccl-tests times) is kept so small sizes
// can be compared with nccl-tests like for like.
// iteration_seconds holds each iteration's time on the device clock (an event pair per
// iteration), so percentiles and the noise-based stop can look past the average.
struct TimedIterations {
  double device_seconds = 0;
  double host_seconds = 0;
  std::vector<double> iteration_seconds;
};

// One rank's view of a collective under compute (docs/overlap.md), over every round of
// one run_under_compute: the alone figures come from the same rounds, interleaved.
struct OverlapTimes {
  double comm_alone_s = 0;     // per call, the collective on an idle device
  double comm_under_s = 0;     // per call, while the GEMM stream is busy
  double compute_alone_s = 0;  // per GEMM, without the collective
  double compute_under_s = 0;  // per GEMM, of the GEMMs that ran wholly inside the collective's window
  double overlapped_wall_s = 0;  // per round: first GEMM start to the later of the last GEMM and the last call
  double serial_sum_s = 0;       // per round: the same calls and GEMMs one after another at their alone times
  int compute_ops_under = 0;     // GEMMs per round that ran wholly inside the window
  double plain_loop_s = 0;       // per GEMM in a plain loop (no events between GEMMs); 0: not measured
};

// What this rank runs on, for run.json's rank map.
struct DeviceDescription {
  int gpu_index = -1;  // -1: no GPU (mpi engine)
  std::string gpu_name;
  std::string pci_bus_id;
  std::string driver_version;
  std::string cuda_runtime_version;
  std::string nccl_header_version;
  std::string nccl_library_version;
  // Compute mode EXCLUSIVE_PROCESS: a second process cannot create a context on this GPU
  // while another holds one, so worker groups must not overlap there.
  bool exclusive_process = false;
};

// A communicator setting passed through the API (ncclConfig_t field, snake_case name).
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  virtual DeviceDescription device() const = 0;
  // Creates what connects the ranks (a freshly initialised NCCL communicator with
  // these config fields). Separate from construction so the runtime can first check
  // every rank's device (two ranks on one GPU) before any rank waits on the others.
  // Throws UsageError for a config field the engine does not know.
  virtual void connect(const std::vector<ConfigSetting>& config) = 0;
  // The environment the next connect's init sees (the worker's as it started plus the
  // point's variables), for an engine that reads its variables from it rather than from
  // the process (the mpi engine's testing aid, core/test_slowdown.hpp). Default: nothing.
  virtual void init_environment(const std::map<std::string, std::string>& environment) { (void)environment; }
  // Whether the library under the engine reads its variables from the process
  // environment (NCCL does): a point's variables are then set in the process for its init.
  virtual bool reads_process_environment() const { return true; }
  // For a variable the engine reads itself, the value it runs with ("" when unset): what
  // a point's setting is verified against. nullopt: the engine does not read it (NCCL's
  // log tells whether NCCL did).
  virtual std::optional<std::string> setting_in_effect(std::string_view variable) const {
    (void)variable;
    return std::nullopt;
  }
  // Destroys what connect made; connect may be called again. The teardown may finish in
  // the background (the nccl engine's does); run_timed and settle() wait for it.
  virtual void disconnect() = 0;
  // Returns once everything disconnect() started has finished.
  virtual void settle() {}
  // Empty when this engine can run `call`; otherwise why not (a usage error).
  virtual std::string unsupported_reason(const CollectiveCall& call) const = 0;
  // Runs `call` once on buffers freshly filled with the check pattern and returns the
  // number of wrong output elements on this rank. `corrupt` flips one output element
  // before checking (fault injection, so tests can see the check fail).
  virtual std::uint64_t run_checked(const CollectiveCall& call, bool corrupt) = 0;
  // Runs `samples` x `calls_per_sample` calls back to back, after a barrier across ranks,
  // and returns the time this rank saw from the first launch to the completion of the
  // last, and per sample the time of its calls (iteration_seconds, one per sample). A
  // timing mark between calls of a few microseconds slows the host's launch rate, so
  // short calls are timed in samples of several calls.
  virtual TimedIterations run_timed(const CollectiveCall& call, int samples, int calls_per_sample = 1) = 0;
  // Splits the connected communicator: one sub-communicator per entry of `colors` (this
  // rank's colour in it); a call with comm == i + 1 then runs on the i-th, every group
  // at once, while run_timed still lines up all ranks first. disconnect() ends them.
  // The default refuses: an engine that cannot split says so (a usage error).
  virtual void split(const std::vector<int>& colors);
  // Testing aid (locate --inject-fault ...:slow=F): each timed call runs F times (F a
  // whole number), so the collectives of this rank's group take about F times as long,
  // as behind a slow GPU or link, whatever else loads the machine. Every rank of the
  // group must be given the same F. 1 turns it off. The default refuses (a usage error).
  virtual void slow_down(double factor);
  // Empty when this engine can run `load` beside its collectives; otherwise why not. The
  // default: it cannot.
  virtual std::string compute_unsupported_reason(const ComputeLoad& load) const;
  // Where its compute runs: the GPU, or the mpi engine's CPU analogue.
  virtual ComputeSite compute_site() const { return ComputeSite::gpu; }
  // Runs `count` GEMMs of `load` back to back, alone, and returns the seconds per GEMM
  // (the first call also allocates and warms the load).
  virtual double time_compute(const ComputeLoad& load, int count);
  // `rounds` rounds, each of: GEMMs alone, `calls` calls alone, then the GEMM stream
  // started first and kept busy with back-to-back GEMMs while `calls` calls run (after a
  // barrier, as run_timed). Every rank passes the same calls and rounds.
  virtual OverlapTimes run_under_compute(const CollectiveCall& call, const ComputeLoad& load, int calls, int rounds);
  // This rank's GPU clocks now; nothing for engines without a GPU or when unreadable.
  // Read between measurements only, never while timing.
  virtual std::optional<GpuClocks> read_clocks() { return std::nullopt; }
};

// What the mpi engine cannot run, decided without MPI so `plan` and `run` refuse the same
// calls before anything launches: a reduction MPI has no type for (bfloat16, float16,
// fp8), the avg op, buffer and launch modes other than host memory and blocking calls.
// Empty when it can. The mpi engine's unsupported_reason is this.
bool mpi_can_reduce(const DataType& dtype);
std::string mpi_engine_unsupported_reason(const CollectiveKind& kind, const DataType& dtype, ReduceOp op,
                                          BufferMode buffers, LaunchMode launch);

}  // namespace ncclsweep
