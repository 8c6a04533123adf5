// On the GPU machine: the NVML reader and nvidia-smi -q -x, read one after the other,
// agree on every GPU's fixed facts (model, driver, maximum clocks, power limits, PCIe
// maximum link) and on the current PCIe link, which only changes under load.
#include "catch_compat.hpp"
#include "doctor/gpu_probe.hpp"
#include "doctor/nvidia_smi.hpp"
#include "doctor/nvml_reader.hpp"
#include "gpu/visible_gpus.hpp"

using namespace ncclsweep::doctor;

TEST_CASE("NVML and nvidia-smi agree on each visible GPU", "[gpu][nvml]") {
  NCCLSWEEP_SKIP_UNLESS_GPUS(1, "NVML and nvidia-smi read a GPU");
  const int gpus = ncclsweep::testing::visible_gpus();
  const NvmlLibrary nvml;
  REQUIRE(nvml.available());
  for (int index = 0; index < gpus; ++index) {
    // The bus id through CUDA here: doctor's probe_gpu asks the GPU module, which this test
    // program does not sit beside.
    char bus[32] = {};
    REQUIRE(cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess);
    GpuFacts from_smi, from_nvml;
    from_smi.bus_id = from_nvml.bus_id = bus;
    add_nvidia_smi_facts(from_smi);
    REQUIRE(from_smi.unavailable_reason.empty());
    NvmlSample sample;
    std::string why;
    REQUIRE(nvml.sample(from_nvml.bus_id, sample, why));
    apply_nvml_sample(sample, from_nvml);
    INFO("GPU " << from_nvml.bus_id << ": " << nlohmann::json(sample).dump());
    CHECK(gpu_fact_disagreements(from_smi, from_nvml).empty());
    CHECK(from_nvml.pcie_gen == from_smi.pcie_gen);
    CHECK(from_nvml.pcie_width == from_smi.pcie_width);
    CHECK(from_nvml.nvlink_total == from_smi.nvlink_total);
    CHECK(sample.temperature_c > 0);
    CHECK(sample.power_w > 0);
  }
}
