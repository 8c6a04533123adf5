// Reading a machine through SystemReader, on fabricated trees: the committed one under
// tests/data/doctor-trees/ and small ones built here; and nvidia-smi's output.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "unit/doctor_findings.hpp"
#include "read_file.hpp"
#include "test_data.hpp"
#include "doctor/checks.hpp"
#include "doctor/nvidia_smi.hpp"
#include "doctor/system_reader.hpp"
#include "scratch.hpp"

using namespace ncclsweep::doctor;
namespace fs = std::filesystem;

namespace {


// A tree of files under a fresh temporary directory.
struct FakeTree {
  fs::path root;
  explicit FakeTree(const std::string& name)
      : root(ncclsweep::testing::scratch_root() / "doctor" / name) {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~FakeTree() { fs::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    const fs::path file = root / fs::path(path).relative_path();
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text << "\n";
  }
};

RankFacts misplaced_rank_facts() {
  const auto reader = make_rooted_reader(kTestData / "doctor-trees" / "misplaced-rank");
  GpuFacts gpu;
  gpu.bus_id = "00000000:18:00.0";  // nvidia-smi's spelling; sysfs has 0000:18:00.0
  return collect_rank_facts(*reader, {0, "node0", 0},
                            {{"HOME", "/home/user"}, {"NCCL_TOPO_FILE", "/etc/nccl.conf"},
                             {"NCCL_GRAPH_FILE", "/opt/missing.xml"}},
                            gpu);
}

}  // namespace

TEST_CASE("a rooted reader reads files and lists directories under its root only") {
  FakeTree tree("reader");
  tree.write("/sys/a/b", " 42 ");
  tree.write("/sys/a/c", "x");
  const auto reader = make_rooted_reader(tree.root);
  CHECK(read_integer(*reader, "/sys/a/b") == 42);
  CHECK_FALSE(read_integer(*reader, "/sys/a/c").has_value());
  CHECK(reader->list("/sys/a") == std::vector<std::string>{"b", "c"});
  CHECK(reader->list("/sys/none").empty());
  CHECK(reader->unreadable_reason("/sys/a/b").empty());
  CHECK_THAT(reader->unreadable_reason("/sys/none"), ContainsSubstring("No such file"));
  CHECK(reader->unreadable_reason("/sys/a") == "is a directory");
}

TEST_CASE("facts from the misplaced-rank tree") {
  const RankFacts facts = misplaced_rank_facts();
  CHECK(facts.affinity == std::vector<int>{8, 9});
  CHECK(facts.memory_policy == "bind:1");
  CHECK(facts.gpu.numa_node == 0);
  CHECK(facts.gpu.local_cpulist == "0-7");
  CHECK(facts.cpu.governors.at("powersave") == std::vector<int>{8});
  CHECK(facts.cpu.cur_khz_min == 800000);
  CHECK(facts.cpu.hardware_max_khz == 3800000);
  CHECK(facts.cpu.deepest_enabled_cstate == "C1");
  CHECK(facts.cpu.deepest_cstate == "C6");
  CHECK(facts.cpu.smt == "on");
  REQUIRE(facts.rdma.size() == 2);
  CHECK(facts.rdma[1].device == "mlx5_1");
  CHECK(facts.rdma[1].state == "1: DOWN");
  CHECK(facts.net_interfaces == std::vector<std::string>{"eth0", "ib0", "lo"});
  CHECK(facts.config_files.at("/etc/nccl.conf").at("NCCL_IB_QPS_PER_CONNECTION") == "4");
  CHECK(facts.file_problems.count("NCCL_TOPO_FILE") == 0);  // present in the tree
  CHECK_THAT(facts.file_problems.at("NCCL_GRAPH_FILE"), ContainsSubstring("/opt/missing.xml: No such file"));
  CHECK(facts.environment.count("HOME") == 0);
}

TEST_CASE("findings for the misplaced-rank tree name each problem") {
  const auto found = evaluate({misplaced_rank_facts()});
  const auto affinity = with_check(found, "placement.affinity");
  REQUIRE(affinity.size() == 1);
  CHECK(affinity[0].severity == Severity::warning);
  CHECK_THAT(affinity[0].evidence, ContainsSubstring("cores 8-9: 2 of 2 are not local"));
  CHECK_THAT(affinity[0].fix, ContainsSubstring("--cpunodebind=0"));
  CHECK(with_check(found, "placement.memory").at(0).severity == Severity::warning);
  CHECK_THAT(with_check(found, "cpu.governor").at(0).evidence, ContainsSubstring("powersave on cores 8"));
  CHECK_THAT(with_check(found, "cpu.cstates").at(0).evidence, ContainsSubstring("C1 of C6"));
  CHECK(with_check(found, "env.file").at(0).severity == Severity::error);
  CHECK_THAT(with_check(found, "env.config_file").at(0).evidence,
             ContainsSubstring("not in the environment: NCCL_IB_QPS_PER_CONNECTION"));
  const auto rdma = with_check(found, "network.rdma");
  CHECK(std::count_if(rdma.begin(), rdma.end(), [](const Finding& f) { return f.severity == Severity::warning; }) == 1);
  CHECK(has_error(found));
}

TEST_CASE("a well-placed rank on a healthy tree has no warnings") {
  FakeTree tree("healthy");
  tree.write("/proc/self/status", "Name:\tx\nCpus_allowed_list:\t0-1\n");
  tree.write("/proc/self/numa_maps", "5500 default file=/bin/x");
  tree.write("/sys/bus/pci/devices/0000:18:00.0/numa_node", "0");
  tree.write("/sys/bus/pci/devices/0000:18:00.0/local_cpulist", "0-7");
  for (const std::string cpu : {"0", "1"}) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + cpu;
    tree.write(dir + "/cpufreq/scaling_governor", "performance");
    tree.write(dir + "/cpufreq/scaling_max_freq", "3800000");
    tree.write(dir + "/cpufreq/cpuinfo_max_freq", "3800000");
    tree.write(dir + "/cpuidle/state0/name", "POLL");
    tree.write(dir + "/cpuidle/state1/name", "C6");
    tree.write(dir + "/cpuidle/state1/disable", "0");
  }
  const auto reader = make_rooted_reader(tree.root);
  GpuFacts gpu;
  gpu.bus_id = "0000:18:00.0";
  const RankFacts facts = collect_rank_facts(*reader, {0, "n", 0}, {{"NCCL_ALGO", "Ring"}}, gpu);
  const auto found = evaluate({facts});
  for (const auto& f : found) {
    INFO(f.check + ": " + f.evidence);
    CHECK(f.severity == Severity::info);
  }
  CHECK_THAT(with_check(found, "placement.affinity").at(0).evidence, ContainsSubstring("all local to its GPU"));
  CHECK_THAT(with_check(found, "cpu.cstates").at(0).evidence, ContainsSubstring("deepest enabled C-state C6"));
}

TEST_CASE("an empty tree (a bare container) gives information, never a crash") {
  FakeTree tree("empty");
  const auto reader = make_rooted_reader(tree.root);
  const RankFacts facts = collect_rank_facts(*reader, {0, "n", 0}, {}, GpuFacts{});
  CHECK(facts.affinity.empty());
  const auto found = evaluate({facts});
  CHECK_FALSE(found.empty());
  CHECK_FALSE(has_error(found));
}

TEST_CASE("the XML extractor matches whole tag names and nested paths") {
  const std::string xml = "<a><clocks_event_reasons>x</clocks_event_reasons><clocks id=\"1\"><sm>5 MHz</sm></clocks>"
                          "<b/></a>";
  CHECK(xml_inner(xml, "clocks").value() == "<sm>5 MHz</sm>");
  CHECK(xml_path(xml, {"a", "clocks", "sm"}).value() == "5 MHz");
  CHECK(xml_inner(xml, "b").value().empty());
  CHECK_FALSE(xml_inner(xml, "c").has_value());
  CHECK_FALSE(xml_inner("<a>unclosed", "a").has_value());
  CHECK(xml_elements("<g id=\"1\">x</g><g id=\"2\">y</g>", "g").size() == 2);
}

TEST_CASE("nvidia-smi -q -x: the healthy H200 of the fixture") {
  const std::string xml = read_file(kTestData / "nvidia-smi-q-x-h200.xml");
  GpuFacts gpu;
  gpu.bus_id = "0000:18:00.0";
  REQUIRE(apply_nvidia_smi_xml(xml, gpu));
  CHECK(gpu.model == "NVIDIA H200");
  CHECK(gpu.driver == "570.133.20");
  CHECK(gpu.performance_state == "P0");
  CHECK(gpu.sm_clock_mhz == 345);
  CHECK(gpu.sm_clock_max_mhz == 1980);
  CHECK(gpu.mem_clock_mhz == 3201);
  CHECK(gpu.mem_clock_max_mhz == 3201);
  CHECK(gpu.power_limit_w == Approx(700));
  CHECK(gpu.power_limit_max_w == Approx(700));
  CHECK(gpu.ecc_uncorrectable == 0);  // aggregate counts 3, volatile none
  CHECK_FALSE(gpu.remapping_pending);
  CHECK(gpu.pcie_gen == 1);
  CHECK(gpu.pcie_gen_max == 5);
  CHECK(gpu.pcie_width == 16);
  CHECK(gpu.pcie_width_max == 16);
}

TEST_CASE("nvidia-smi -q -x: the degraded second GPU of the fixture") {
  const std::string xml = read_file(kTestData / "nvidia-smi-q-x-h200.xml");
  GpuFacts gpu;
  gpu.bus_id = "0000:3a:00.0";
  REQUIRE(apply_nvidia_smi_xml(xml, gpu));
  CHECK(gpu.ecc_uncorrectable == 3);
  CHECK(gpu.remapping_pending);
  CHECK(gpu.power_limit_w == Approx(500));
  CHECK(gpu.mem_clock_mhz == 1593);
  CHECK(gpu.pcie_width == 8);
  RankFacts facts;
  facts.gpu = gpu;
  const auto found = gpu_checks(facts);
  CHECK(has_error(found));
  CHECK_THAT(with_check(found, "gpu.clocks").at(0).evidence, ContainsSubstring("memory clock 1593 of 3201 MHz"));
  gpu.bus_id = "0000:99:00.0";
  CHECK_FALSE(apply_nvidia_smi_xml(xml, gpu));  // two GPUs, neither is this one
}

TEST_CASE("nvidia-smi nvlink -s: active and inactive links are counted") {
  GpuFacts gpu;
  apply_nvlink_status("GPU 0: NVIDIA H200 (UUID: GPU-1)\n\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n"
                      "\t Link 2: 26.562 GB/s\n",
                      gpu);
  CHECK(gpu.nvlink_total == 3);
  CHECK(gpu.nvlink_up == 2);
}

TEST_CASE("program_output runs a program without a shell and reports failure") {
  const auto out = program_output({"echo", "a b;c"});
  REQUIRE(out.has_value());
  CHECK(*out == "a b;c\n");
  CHECK_FALSE(program_output({"false"}).has_value());
  CHECK_FALSE(program_output({"/nonexistent/program"}).has_value());
}
