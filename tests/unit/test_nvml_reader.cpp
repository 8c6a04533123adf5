// The NVML reader's pure parts (reason names, its facts in doctor's terms) and its
// behaviour where no driver is loaded (this CI machine): it says why, it never throws.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "read_file.hpp"
#include "test_data.hpp"
#include "doctor/gpu_probe.hpp"
#include "doctor/nvidia_smi.hpp"
#include "doctor/nvml_reader.hpp"

using namespace ncclsweep::doctor;

TEST_CASE("NVML throttle reason bits are named as NVML numbers them", "[nvml]") {
  CHECK(throttle_reason_names(0).empty());
  CHECK(throttle_reason_names(0x1) == std::vector<std::string>{"gpu_idle"});
  CHECK(throttle_reason_names(0x4 | 0x40) == std::vector<std::string>{"sw_power_cap", "hw_thermal"});
  CHECK(throttle_reason_names(0x80) == std::vector<std::string>{"hw_power_brake"});
  CHECK(throttle_reason_names(1ULL << 40) == std::vector<std::string>{"bit_40"});
  CHECK(throttle_slows_work("hw_slowdown"));
  CHECK_FALSE(throttle_slows_work("gpu_idle"));
  CHECK_FALSE(throttle_slows_work("sync_boost"));
}

TEST_CASE("NVML and nvidia-smi -q -x agree on the recorded H200", "[nvml]") {
  GpuFacts from_smi;
  from_smi.bus_id = "0000:18:00.0";
  REQUIRE(apply_nvidia_smi_xml(read_file(kTestData / "nvidia-smi-q-x-h200.xml"), from_smi));
  const NvmlSample sample = nlohmann::json::parse(read_file(kTestData / "nvml-sample-h200.json")).get<NvmlSample>();
  GpuFacts from_nvml;
  from_nvml.bus_id = "0000:18:00.0";
  apply_nvml_sample(sample, from_nvml);
  CHECK(gpu_fact_disagreements(from_smi, from_nvml).empty());
  CHECK(from_nvml.sm_clock_mhz == from_smi.sm_clock_mhz);
  CHECK(from_nvml.pcie_gen == from_smi.pcie_gen);
  CHECK(from_nvml.pcie_width == from_smi.pcie_width);
  CHECK(from_nvml.performance_state == from_smi.performance_state);
  // The degraded second GPU of the fixture differs from this sample, and says where.
  GpuFacts other;
  other.bus_id = "0000:3a:00.0";
  REQUIRE(apply_nvidia_smi_xml(read_file(kTestData / "nvidia-smi-q-x-h200.xml"), other));
  const auto differences = gpu_fact_disagreements(other, from_nvml);
  CHECK_FALSE(differences.empty());
  CHECK(std::find(differences.begin(), differences.end(), "power_limit_w 500 vs 700") != differences.end());
}

TEST_CASE("Without a driver the NVML reader says why and samples nothing", "[nvml]") {
  const NvmlLibrary nvml;
  if (nvml.available()) NCCLSWEEP_SKIP("a driver is loaded here; tests/gpu checks NVML live");
  CHECK_FALSE(nvml.unavailable_reason().empty());
  NvmlSample sample;
  std::string why;
  CHECK_FALSE(nvml.sample("0000:18:00.0", sample, why));
  CHECK(why == nvml.unavailable_reason());
}
