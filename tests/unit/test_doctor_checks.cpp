// The checks as pure functions over facts, one situation each.
#include <algorithm>

#include "catch_compat.hpp"
#include "unit/doctor_findings.hpp"
#include "doctor/checks.hpp"

using namespace ncclsweep::doctor;

namespace {

RankFacts rank(int r, std::string host = "node0") {
  RankFacts f;
  f.identity = {r, std::move(host), r};
  f.affinity = {r};
  return f;
}

}  // namespace

TEST_CASE("an NCCL variable that differs on one rank is an error naming that rank") {
  std::vector<RankFacts> ranks{rank(0), rank(1), rank(2)};
  for (auto& r : ranks) r.environment["NCCL_ALGO"] = "Ring";
  ranks[1].environment["NCCL_ALGO"] = "Tree";
  ranks[2].environment["NCCL_PROTO"] = "LL";
  const auto found = with_check(evaluate(ranks), "env.uniform");
  REQUIRE(found.size() == 2);
  CHECK(found[0].severity == Severity::error);
  CHECK(found[0].ranks == std::vector<int>{1});
  CHECK_THAT(found[0].evidence, ContainsSubstring("NCCL_ALGO"));
  CHECK_THAT(found[0].evidence, ContainsSubstring("'Tree' on ranks 1"));
  CHECK_THAT(found[0].evidence, ContainsSubstring("'Ring' on ranks 0,2"));
  CHECK(found[1].ranks == std::vector<int>{2});  // the one rank that sets NCCL_PROTO
  CHECK_THAT(found[1].evidence, ContainsSubstring("(unset) on ranks 0-1"));
}

TEST_CASE("a tie names the ranks that disagree with rank 0") {
  std::vector<RankFacts> ranks{rank(0), rank(1)};
  ranks[0].environment["NCCL_ALGO"] = "Ring";
  ranks[1].environment["NCCL_ALGO"] = "Tree";
  const auto found = with_check(uniformity_checks(ranks), "env.uniform");
  REQUIRE(found.size() == 1);
  CHECK(found[0].ranks == std::vector<int>{1});
}

TEST_CASE("CUDA_VISIBLE_DEVICES may differ per rank") {
  std::vector<RankFacts> ranks{rank(0), rank(1)};
  ranks[0].environment["CUDA_VISIBLE_DEVICES"] = "0";
  ranks[1].environment["CUDA_VISIBLE_DEVICES"] = "1";
  CHECK(uniformity_checks(ranks).empty());
}

TEST_CASE("an unreadable NCCL_TOPO_FILE is an error on the ranks that cannot read it") {
  std::vector<RankFacts> ranks{rank(0), rank(1, "node1")};
  ranks[1].file_problems["NCCL_TOPO_FILE"] = "/opt/topo.xml: No such file or directory";
  const auto found = with_check(evaluate(ranks), "env.file");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::error);
  CHECK(found[0].ranks == std::vector<int>{1});
  CHECK(found[0].hosts == std::vector<std::string>{"node1"});
  CHECK_THAT(found[0].evidence, ContainsSubstring("NCCL_TOPO_FILE=/opt/topo.xml: No such file"));
  CHECK_THAT(found[0].fix, ContainsSubstring("container"));
}

TEST_CASE("NCCL settings from a config file are a warning when the environment does not hold them") {
  RankFacts r = rank(0);
  r.config_files["/etc/nccl.conf"] = {{"NCCL_TOPO_FILE", "/opt/t.xml"}, {"NCCL_ALGO", "Ring"}};
  r.environment["NCCL_ALGO"] = "Tree";
  const auto found = with_check(environment_checks(r), "env.config_file");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::warning);
  CHECK_THAT(found[0].evidence, ContainsSubstring("not in the environment: NCCL_TOPO_FILE"));
  r.environment["NCCL_TOPO_FILE"] = "/opt/t.xml";
  CHECK(with_check(environment_checks(r), "env.config_file").at(0).severity == Severity::info);
}

TEST_CASE("the NCCL library must match the header and be the same on every rank") {
  std::vector<RankFacts> ranks{rank(0), rank(1), rank(2)};
  for (auto& r : ranks) r.nccl_header_version = r.nccl_library_version = "2.28.3";
  CHECK(with_check(evaluate(ranks), "env.nccl_version").empty());
  ranks[2].nccl_library_version = "2.21.5";
  const auto found = with_check(evaluate(ranks), "env.nccl_version");
  REQUIRE(found.size() == 2);
  CHECK(found[0].severity == Severity::error);  // differs across ranks
  CHECK(found[0].ranks == std::vector<int>{2});
  CHECK(found[1].severity == Severity::warning);  // library != header on rank 2
  CHECK_THAT(found[1].evidence, ContainsSubstring("libnccl 2.21.5 loaded"));
}

TEST_CASE("ranks of one host on overlapping cores are flagged; other hosts are not") {
  std::vector<RankFacts> ranks{rank(0), rank(1), rank(2, "node1")};
  ranks[0].affinity = {0, 1, 2, 3};
  ranks[1].affinity = {2, 3, 4, 5};
  ranks[2].affinity = {0, 1, 2, 3};
  const auto found = shared_core_checks(ranks);
  REQUIRE(found.size() == 1);
  CHECK(found[0].ranks == std::vector<int>{0, 1});
  CHECK(found[0].hosts == std::vector<std::string>{"node0"});
  CHECK_THAT(found[0].evidence, ContainsSubstring("1 pair(s)"));
  CHECK_THAT(found[0].evidence, ContainsSubstring("ranks 0 and 1 share cores 2-3"));
}

TEST_CASE("two ranks of one host driving one GPU is an error") {
  std::vector<RankFacts> ranks{rank(0), rank(1), rank(2, "node1")};
  for (auto& r : ranks) r.gpu.bus_id = "0000:18:00.0";
  const auto found = with_check(shared_gpu_checks(ranks), "gpu.shared");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::error);
  CHECK(found[0].ranks == std::vector<int>{0, 1});
  CHECK(found[0].hosts == std::vector<std::string>{"node0"});
}

TEST_CASE("without a GPU the GPU checks say so as information") {
  RankFacts r = rank(0);
  r.gpu.unavailable_reason = "ncclsweep was built without CUDA";
  const auto found = gpu_checks(r);
  REQUIRE(found.size() == 1);
  CHECK(found[0].check == "gpu.visible");
  CHECK(found[0].severity == Severity::info);
  CHECK_THAT(found[0].evidence, ContainsSubstring("no GPU visible"));
}

TEST_CASE("a degraded GPU gives one finding per problem") {
  RankFacts r = rank(0);
  r.gpu.bus_id = "0000:18:00.0";
  r.gpu.nvlink_up = 16;
  r.gpu.nvlink_total = 18;
  r.gpu.ecc_uncorrectable = 2;
  r.gpu.power_limit_w = 500;
  r.gpu.power_limit_max_w = 700;
  r.gpu.pcie_width = 8;
  r.gpu.pcie_width_max = 16;
  const auto found = gpu_checks(r);
  CHECK(with_check(found, "gpu.nvlink").at(0).severity == Severity::warning);
  CHECK(with_check(found, "gpu.ecc").at(0).severity == Severity::error);
  CHECK_THAT(with_check(found, "gpu.power_limit").at(0).evidence, ContainsSubstring("500 W of 700 W"));
  CHECK_THAT(with_check(found, "gpu.pcie").at(0).evidence, ContainsSubstring("x8 of x16"));
  r.gpu.nvlink_up = 18;
  r.gpu.ecc_uncorrectable = 0;
  r.gpu.power_limit_w = 700;
  r.gpu.pcie_width = 16;
  const auto healthy = gpu_checks(r);
  CHECK(std::none_of(healthy.begin(), healthy.end(), [](const Finding& f) { return f.severity != Severity::info; }));
  CHECK_THAT(with_check(healthy, "gpu.identity").at(0).evidence, ContainsSubstring("NVLink 18/18 links up"));
}

TEST_CASE("NCCL_IB_HCA and NCCL_SOCKET_IFNAME must name devices that exist") {
  RankFacts r = rank(0);
  r.rdma = {{"mlx5_0", "1", "4: ACTIVE", "400 Gb/sec (4X NDR)", 0}};
  r.net_interfaces = {"eth0", "ib0", "lo"};
  r.environment["NCCL_IB_HCA"] = "mlx5_0:1,mlx5_7:1";
  r.environment["NCCL_SOCKET_IFNAME"] = "eth";
  auto found = network_checks(r);
  REQUIRE(with_check(found, "network.ib_hca").size() == 1);
  CHECK_THAT(with_check(found, "network.ib_hca")[0].evidence, ContainsSubstring("names mlx5_7"));
  CHECK(with_check(found, "network.socket_ifname").empty());  // "eth" is a prefix of eth0
  r.environment["NCCL_SOCKET_IFNAME"] = "=eth";                 // exact: no interface is called "eth"
  r.environment["NCCL_IB_HCA"] = "^mlx5_7";                     // excluding a missing device is harmless
  found = network_checks(r);
  CHECK(with_check(found, "network.ib_hca").empty());
  REQUIRE(with_check(found, "network.socket_ifname").size() == 1);
  CHECK(with_check(found, "network.socket_ifname")[0].severity == Severity::error);
}

TEST_CASE("no RDMA devices is information, not a problem") {
  const auto found = network_checks(rank(0));
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::info);
  CHECK_THAT(found[0].evidence, ContainsSubstring("no RDMA devices"));
}
