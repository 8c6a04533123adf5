#pragma once
// Ranks that drive one GPU: the one check behind doctor's `gpu.shared` finding and the
// refusal before a run (--allow-shared-gpu). Two ranks on one GPU measure each other's
// contention, not the GPU.
#include <string>
#include <vector>

namespace ncclsweep {

struct GpuUser {
  int rank = 0;
  std::string host;
  std::string bus_id;  // PCI bus id; empty: the rank drives no GPU
};

struct SharedGpu {
  std::string host, bus_id;
  std::vector<int> ranks;  // ascending, two or more
};

// Every GPU driven by more than one rank, by host then bus id.
std::vector<SharedGpu> shared_gpus(const std::vector<GpuUser>& users);

// "ranks 0 and 1 on h1 both drive GPU 0000:1b:00.0", "ranks 0-3 on h1 all drive GPU ...".
std::string describe_shared_gpu(const SharedGpu& shared);

}  // namespace ncclsweep
