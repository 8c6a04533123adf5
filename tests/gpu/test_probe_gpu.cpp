// On the GPU machine: `ncclsweep probe` on one rank measures every GPU figure (none is
// skipped), and the figures are where an H200 puts them (a bf16 8192^3 GEMM reaches about
// 785 TFLOP/s there); the run compared with itself passes.
#include <map>
#include <set>

#include "catch_compat.hpp"
#include "gpu/visible_gpus.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

TEST_CASE("probe measures every GPU figure on one GPU", "[gpu][probe]") {
  NCCLSWEEP_SKIP_UNLESS_GPUS(1, "the GPU probes");
  const auto dir = scratch_dir("probe-gpu");
  const Launch run = mpirun_ncclsweep(1, {"probe", "--quick", "-o", dir.string()});
  INFO(run.output);
  REQUIRE((run.status == 0 || run.status == 1));  // 1: a host stands out; one host never does
  CHECK(run.status == 0);
  const json doc = read_json_file(dir / "probe.json");
  std::set<std::string> gpu_probes{"small_gpu_work", "gpu_map_unmap", "gpu_load"};
  std::map<std::string, double> value;
  for (const auto& r : doc.at("records")) {
    if (!gpu_probes.count(r.at("probe").get<std::string>())) continue;
    INFO(r.dump());
    CHECK_FALSE(r.contains("skipped"));
    if (r.contains("value")) value[r.at("metric").get<std::string>()] = r.at("value").get<double>();
  }
  CHECK(value.size() == 19);
  CHECK(value["gemm_bf16_tflops"] > 100);
  CHECK(value["gpu_sm_clock_under_load_mhz"] > 500);
  CHECK(value["gpu_power_under_load_w"] > 50);
  CHECK(value["kernel_launch_us"] > 0);
  CHECK(value["kernel_launch_us"] < 100);
  CHECK(value["hbm_copy_gbps"] > 500);
  CHECK(value["pcie_link_width_ratio"] > 0);
  const Launch compare = run_ncclsweep({"compare", dir.string(), dir.string()});
  INFO(compare.output);
  CHECK(compare.status == 0);
}
