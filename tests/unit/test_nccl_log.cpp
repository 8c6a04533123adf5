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
