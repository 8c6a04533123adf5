#pragma once
// NCCL's tuner-plugin interface, versions 4 and 5, declared here from the structs NCCL
// documents for plugin authors (its ext-tuner headers, NCCL 2.28), so the plugin builds
// without NCCL's source tree. NCCL 2.28 looks for ncclTunerPlugin_v5 first, then _v4.
// Every type is laid out exactly as NCCL's C declarations; the static_asserts pin what
// can be pinned.
#include <cstddef>
#include <cstdint>

namespace ncclsweep::tuner::abi {

// ncclResult_t (a C enum: int-sized).
enum Result : int { kSuccess = 0, kSystemError = 2, kInternalError = 3, kInvalidArgument = 4 };

// ncclFunc_t: tuners are asked about the first five only.
enum Func : int { kBroadcast = 0, kReduce = 1, kAllGather = 2, kReduceScatter = 3, kAllReduce = 4 };

// ncclDebugLogLevel and the TUNING subsystem bit of ncclDebugLogSubSys.
enum LogLevel : int { kLogNone = 0, kLogVersion = 1, kLogWarn = 2, kLogInfo = 3, kLogAbort = 4, kLogTrace = 5 };
inline constexpr unsigned long kSubsystemInit = 1;
inline constexpr unsigned long kSubsystemTuning = 64;

// ncclDebugLogger_t: NCCL's own logger, printf-style.
using Logger = void (*)(LogLevel level, unsigned long flags, const char* file, int line, const char* format, ...);

// NCCL_ALGO_PROTO_IGNORE: a cost-table entry NCCL will not use for this call.
inline constexpr float kIgnoredCost = -1.0f;

inline constexpr int kAlgorithms = 7;  // NCCL_NUM_ALGORITHMS
inline constexpr int kProtocols = 3;   // NCCL_NUM_PROTOCOLS

// ncclNvlDomainInfo_v5_t
struct NvlDomainInfoV5 {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
};

// ncclTunerConstants_v5_t: NCCL's model constants, which a v5 tuner may adjust at init.
struct TunerConstantsV5 {
  double baseLatencies[kAlgorithms][kProtocols];
  double hwLatencies[3][kAlgorithms][kProtocols];  // NVLink, PCI, network
  double llMaxBws[4][3];                            // [compute capability][node-count scale]
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
};

// getCollInfo's cost table is NCCL's float[numAlgo][numProto], contiguous, passed as
// float**: index it as rows of numProto floats, never as an array of row pointers.
using GetCollInfo = Result (*)(void* context, Func collType, std::size_t nBytes, int numPipeOps, float** collCostTable,
                               int numAlgo, int numProto, int regBuff, int* nChannels);

// ncclTuner_v4_t
struct TunerV4 {
  const char* name;
  Result (*init)(std::size_t nRanks, std::size_t nNodes, Logger logFunction, void** context);
  GetCollInfo getCollInfo;
  Result (*destroy)(void* context);
};

// ncclTuner_v5_t
struct TunerV5 {
  const char* name;
  Result (*init)(void** context, std::uint64_t commId, std::size_t nRanks, std::size_t nNodes, Logger logFunction,
                 NvlDomainInfoV5* nvlDomainInfo, TunerConstantsV5* constants);
  GetCollInfo getCollInfo;
  Result (*finalize)(void* context);
};

static_assert(sizeof(Result) == sizeof(int) && sizeof(Func) == sizeof(int) && sizeof(LogLevel) == sizeof(int),
              "C enums are int-sized");
static_assert(sizeof(NvlDomainInfoV5) == 3 * sizeof(int));
static_assert(sizeof(TunerConstantsV5) == (7 * 3 + 3 * 7 * 3 + 5 * 4 * 3) * sizeof(double));
static_assert(offsetof(TunerConstantsV5, llMaxBws) == (7 * 3 + 3 * 7 * 3) * sizeof(double));
static_assert(sizeof(TunerV4) == 4 * sizeof(void*) && offsetof(TunerV4, getCollInfo) == 2 * sizeof(void*));
static_assert(sizeof(TunerV5) == 4 * sizeof(void*) && offsetof(TunerV5, getCollInfo) == 2 * sizeof(void*));

}  // namespace ncclsweep::tuner::abi
