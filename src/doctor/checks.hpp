#pragma once
// The preflight checks: pure functions from what ranks read (rank_facts.hpp) to
// findings. docs/doctor.md lists each check, its severity and its fix.
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "doctor/rank_facts.hpp"

namespace ncclsweep::doctor {

// A finding about one rank.
Finding rank_finding(const RankFacts& facts, std::string check, Severity severity, std::string evidence,
                     std::string fix = {});

// Per rank (checks_env.cpp): unreadable *_FILE variables, NCCL config files, the NCCL
// library against the header.
std::vector<Finding> environment_checks(const RankFacts& facts);
// Across ranks: NCCL_* variables and NCCL library versions the same on every rank.
std::vector<Finding> uniformity_checks(const std::vector<RankFacts>& ranks);

// Per rank (checks_host.cpp): CPU affinity and memory policy against the GPU's NUMA
// node; governor, frequency, C-states, SMT; RDMA ports, NCCL_IB_HCA, NCCL_SOCKET_IFNAME.
std::vector<Finding> placement_checks(const RankFacts& facts);
std::vector<Finding> cpu_checks(const RankFacts& facts);
std::vector<Finding> network_checks(const RankFacts& facts);
// Across ranks: ranks of one host sharing cores.
std::vector<Finding> shared_core_checks(const std::vector<RankFacts>& ranks);

// Per rank (checks_gpu.cpp): model, clocks, power limit, ECC, PCIe link, NVLink.
std::vector<Finding> gpu_checks(const RankFacts& facts);
// Across ranks: two ranks of one host on one GPU; GPU models and drivers alike.
std::vector<Finding> shared_gpu_checks(const std::vector<RankFacts>& ranks);

// Every check over every rank, merged (merge_findings).
std::vector<Finding> evaluate(const std::vector<RankFacts>& ranks);

// What one `ncclsweep doctor` judged: every rank's facts and the findings over them.
struct DoctorReport {
  std::vector<RankFacts> ranks;
  std::vector<Finding> findings;
};

}  // namespace ncclsweep::doctor
