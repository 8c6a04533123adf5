// Findings, their merging and printing, and the small text helpers of src/doctor.
#include "catch_compat.hpp"
#include "core/finding.hpp"
#include "doctor/rank_facts.hpp"
#include "doctor/system_reader.hpp"

using namespace ncclsweep::doctor;

TEST_CASE("findings alike but for the rank merge into one with every rank and host") {
  const std::vector<Finding> merged = merge_findings({
      {"env.file", Severity::error, {3}, {"b"}, "NCCL_TOPO_FILE=/x: gone", "mount it"},
      {"cpu.smt", Severity::info, {0}, {"a"}, "SMT on", ""},
      {"env.file", Severity::error, {0}, {"a"}, "NCCL_TOPO_FILE=/x: gone", "mount it"},
      {"env.file", Severity::error, {1}, {"a"}, "NCCL_TOPO_FILE=/x: gone", "mount it"},
      {"cpu.governor", Severity::warning, {2}, {"b"}, "governor powersave", "set performance"},
  });
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].check == "env.file");  // errors first
  CHECK(merged[0].ranks == std::vector<int>{0, 1, 3});
  CHECK(merged[0].hosts == std::vector<std::string>{"b", "a"});
  CHECK(merged[1].severity == Severity::warning);
  CHECK(merged[2].severity == Severity::info);
  CHECK(has_error(merged));
  CHECK_FALSE(has_error({merged[1], merged[2]}));
}

TEST_CASE("rank lists print as ranges") {
  CHECK(compact_ranks({0, 1, 2, 3, 7, 9, 10}) == "0-3,7,9-10");
  CHECK(compact_ranks({5}) == "5");
  CHECK(compact_ranks({}) == "-");
}

TEST_CASE("the findings table shows severity, check, ranks, hosts, evidence and the fix") {
  const std::string table = findings_table({{"env.uniform", Severity::error, {1, 2}, {"node7"},
                                             "NCCL_ALGO differs", "give every rank the same NCCL_ALGO"}});
  CHECK_THAT(table, ContainsSubstring("severity"));
  CHECK_THAT(table, ContainsSubstring("error    env.uniform"));
  CHECK_THAT(table, ContainsSubstring("1-2"));
  CHECK_THAT(table, ContainsSubstring("node7"));
  CHECK_THAT(table, ContainsSubstring("NCCL_ALGO differs"));
  CHECK_THAT(table, ContainsSubstring("fix: give every rank the same NCCL_ALGO"));
}

TEST_CASE("a finding survives JSON and a bad severity is refused") {
  const Finding f{"gpu.ecc", Severity::warning, {4}, {"h"}, "remap pending", "reset"};
  const Finding back = nlohmann::json(f).get<Finding>();
  CHECK(back.check == f.check);
  CHECK(back.severity == Severity::warning);
  CHECK(back.ranks == f.ranks);
  CHECK(nlohmann::json(f).at("severity") == "warning");
  nlohmann::json bad = f;
  bad["severity"] = "fatal";
  CHECK_THAT(usage_error_text([&] { (void)bad.get<Finding>(); }), ContainsSubstring("info, warning or error"));
}

TEST_CASE("CPU lists parse and print in the kernel's notation") {
  CHECK(parse_cpu_list("0-3,8,10-11\n") == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(parse_cpu_list(" 5 ") == std::vector<int>{5});
  CHECK(parse_cpu_list("").empty());
  CHECK(parse_cpu_list("0-1,x") == std::vector<int>{0, 1});  // stops at the malformed part
  CHECK(format_cpu_list({11, 0, 1, 2, 3, 8, 10}) == "0-3,8,10-11");
}

TEST_CASE("PCI bus ids from CUDA and nvidia-smi map to the sysfs name") {
  CHECK(sysfs_bus_id("00000000:18:00.0") == "0000:18:00.0");
  CHECK(sysfs_bus_id("0000:3A:00.0") == "0000:3a:00.0");
}

TEST_CASE("nccl.conf lines become variables; comments and junk are skipped") {
  const auto vars = parse_nccl_conf("# site\nNCCL_TOPO_FILE=/opt/t.xml\n  NCCL_IB_QPS_PER_CONNECTION = 4 \nnonsense\n");
  CHECK(vars.size() == 2);
  CHECK(vars.at("NCCL_TOPO_FILE") == "/opt/t.xml");
  CHECK(vars.at("NCCL_IB_QPS_PER_CONNECTION") == "4");
}

TEST_CASE("only the *_FILE variables NCCL reads are checked for readability") {
  CHECK(is_input_file_variable("NCCL_TOPO_FILE"));
  CHECK(is_input_file_variable("NCCL_GRAPH_FILE"));
  CHECK(is_input_file_variable("NCCL_CONF_FILE"));
  CHECK(is_input_file_variable("NCCL_TUNER_CONFIG_FILE"));
  CHECK_FALSE(is_input_file_variable("NCCL_DEBUG_FILE"));
  CHECK_FALSE(is_input_file_variable("NCCL_TOPO_DUMP_FILE"));
  CHECK_FALSE(is_input_file_variable("NCCL_ALGO"));
}

TEST_CASE("the doctor's environment keeps NCCL variables, CUDA_VISIBLE_DEVICES and HOME") {
  std::string a = "NCCL_ALGO=Ring", b = "PATH=/bin", c = "CUDA_VISIBLE_DEVICES=1", d = "HOME=/home/u";
  char* envp[] = {a.data(), b.data(), c.data(), d.data(), nullptr};
  const auto env = doctor_environment(envp);
  CHECK(env.size() == 3);
  CHECK(env.at("NCCL_ALGO") == "Ring");
  CHECK_FALSE(env.count("PATH"));
}
