#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch_compat.hpp"
#include "verify/nccl_log.hpp"

using namespace ncclsweep;

namespace {
// Lines in the shapes nccl-facts.md section 2 records (NCCL 2.28).
constexpr const char* kLog =
    "vm:1564:1564 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 1.\n"
    "vm:1564:1564 [0] NCCL INFO NCCL_PROTO set by environment to LL\n"
    "vm:1564:1570 [0] NCCL INFO Invalid value abc for NCCL_BUFFSIZE, using default 4194304.\n"
    "vm:1564:1570 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "vm:1564:1570 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "vm:1564:1570 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels\n";
}  // namespace

TEST_CASE("the log tells applied, not-read and mismatch apart") {
  NcclLogFacts facts;
  scan_nccl_log(kLog, facts);
  CHECK(verify_env_setting(facts, "NCCL_MAX_NCHANNELS", "1") == SettingStatus::applied);
  CHECK(verify_env_setting(facts, "NCCL_MAX_NCHANNELS", "32") == SettingStatus::mismatch);
  CHECK(verify_env_setting(facts, "NCCL_PROTO", "LL") == SettingStatus::applied);
  CHECK(verify_env_setting(facts, "NCCL_PROTO", "Simple") == SettingStatus::mismatch);
  CHECK(verify_env_setting(facts, "NCCL_IB_QPS_PER_CONNECTION", "4") == SettingStatus::not_read);
  CHECK(verify_env_setting(facts, "NCCL_BUFFSIZE", "abc") == SettingStatus::mismatch);
}

TEST_CASE("the log tells what NCCL built") {
  NcclLogFacts facts;
  scan_nccl_log(kLog, facts);
  CHECK(facts.transports == std::set<std::string>{"P2P/CUMEM/read"});
  CHECK(facts.coll_channels == 24);
}

TEST_CASE("a later re-init's line replaces the earlier value; pieces add up") {
  NcclLogFacts facts;
  scan_nccl_log("x NCCL INFO NCCL_PROTO set by environment to LL\n", facts);
  scan_nccl_log("x NCCL INFO NCCL_PROTO set by environment to Simple", facts);  // no final newline
  CHECK(verify_env_setting(facts, "NCCL_PROTO", "Simple") == SettingStatus::applied);
  CHECK(facts.coll_channels == -1);
}

TEST_CASE("the TUNING line gives the algorithm, protocol and channels per size") {
  NcclLogFacts facts;
  scan_nccl_log("vm:1:1 [0] NCCL INFO AllGather: 1073741824 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}\n"
                "vm:1:1 [0] NCCL INFO ReduceScatter: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n",
                facts);
  REQUIRE(facts.algorithms.size() == 2);
  CHECK(facts.algorithms.at("AllGather 1073741824 B") == "RING/SIMPLE, 24 channels");
  CHECK(facts.algorithms.at("ReduceScatter 4096 B") == "RING/LL, 2 channels");
}

TEST_CASE("the log follower scans only what was added, keeps earlier facts and waits for whole lines") {
  const auto path = std::filesystem::temp_directory_path() / ("ncclsweep-follow-" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(path);
  ncclsweep::NcclLogFollower log(path.string());
  CHECK(log.update().set_by_environment.empty());  // no file yet
  const auto append = [&](const std::string& text) {
    std::ofstream out(path, std::ios::app | std::ios::binary);
    out << text;
  };
  // First init: a process-cached variable is logged once, and never again.
  append("vm:1:1 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 4.\n"
         "vm:1:1 [0] NCCL INFO NCCL_PROTO set by env");
  CHECK(log.update().set_by_environment.at("NCCL_MAX_NCHANNELS") == "4.");  // as NCCL prints integers
  CHECK(log.update().set_by_environment.count("NCCL_PROTO") == 0);  // half a line waits
  append("ironment to LL\n");
  CHECK(log.update().set_by_environment.at("NCCL_PROTO") == "LL");
  // Second point: only its own lines are new; the cached variable's fact stays.
  append("vm:1:1 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n");
  const ncclsweep::NcclLogFacts& facts = log.update();
  CHECK(facts.set_by_environment.at("NCCL_PROTO") == "Simple");
  CHECK(facts.set_by_environment.at("NCCL_MAX_NCHANNELS") == "4.");  // as NCCL prints integers
  std::filesystem::remove(path);
}
