#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "read_file.hpp"
#include "verify/nccl_log.hpp"
#include "verify/nccl_log_line.hpp"
#include "scratch.hpp"

using namespace ncclsweep;

namespace {
// Lines in the shapes NCCL 2.28 prints (docs/nccl-settings.md).
constexpr const char* kLog =
    "vm:1564:1564 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 1.\n"
    "vm:1564:1564 [0] NCCL INFO NCCL_PROTO set by environment to LL\n"
    "vm:1564:1570 [0] NCCL INFO Invalid value 99999999999999999999 for NCCL_BUFFSIZE, using default -2.\n"
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
  CHECK(verify_env_setting(facts, "NCCL_BUFFSIZE", "99999999999999999999") == SettingStatus::mismatch);
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
  const auto path = ncclsweep::testing::scratch_root() / "follow.log";
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

namespace {

NcclLogFacts facts_of(const std::string& file) {
  NcclLogFacts facts;
  // A path, not string concatenation: g++ 12-13 at -O1 warn falsely (-Wstringop-overflow) on that.
  scan_nccl_log(read_file(std::filesystem::path(NCCLSWEEP_TEST_DATA) / "nccl_log_verify" / file), facts);
  return facts;
}

}  // namespace

// Each file: the real first init of a 2x H200 worker, then NCCL's own words on a value it
// refused or replaced (tests/data/nccl_log_verify/README.md).
TEST_CASE("an algorithm name NCCL does not know is a mismatch, never applied") {
  const NcclLogFacts facts = facts_of("algo-unknown-name.log");
  CHECK(facts.set_by_environment.at("NCCL_ALGO") == "Rnig");  // NCCL logs the value before it parses it
  CHECK(verify_env_setting(facts, "NCCL_ALGO", "Rnig") == SettingStatus::mismatch);
  CHECK_THAT(facts.invalid.at("NCCL_ALGO"), ContainsSubstring("Unrecognized element token \"Rnig\""));
  // The protocol parsed before it is untouched.
  CHECK(verify_env_setting(facts, "NCCL_PROTO", "LL") == SettingStatus::applied);
  CHECK(facts.invalid.count("NCCL_PROTO") == 0);
}

TEST_CASE("a protocol list NCCL cannot parse is a mismatch: unknown prefix, missing prefix") {
  const NcclLogFacts unknown = facts_of("proto-unknown-prefix.log");
  CHECK(verify_env_setting(unknown, "NCCL_PROTO", "allreduc:LL") == SettingStatus::mismatch);
  CHECK_THAT(unknown.invalid.at("NCCL_PROTO"), ContainsSubstring("Unrecognized prefix token \"allreduc\""));
  const NcclLogFacts missing = facts_of("proto-missing-prefix.log");
  CHECK(verify_env_setting(missing, "NCCL_PROTO", "LL;Simple") == SettingStatus::mismatch);
  CHECK_THAT(missing.invalid.at("NCCL_PROTO"), ContainsSubstring("must have a prefix"));
  CHECK(missing.invalid.count("NCCL_ALGO") == 0);
}

TEST_CASE("an integer NCCL cannot hold keeps NCCL's default: a mismatch") {
  const NcclLogFacts facts = facts_of("int-out-of-range.log");
  CHECK(verify_env_setting(facts, "NCCL_MAX_NCHANNELS", "99999999999999999999") == SettingStatus::mismatch);
  CHECK_THAT(facts.invalid.at("NCCL_MAX_NCHANNELS"), ContainsSubstring("using default -2"));
  CHECK(facts.set_by_environment.count("NCCL_MAX_NCHANNELS") == 0);
}

TEST_CASE("an integer NCCL reads in part or not at all is a mismatch; its other spellings apply") {
  // NCCL read "abc" as 0 without a word: only the log's number tells.
  const NcclLogFacts zero = facts_of("int-not-a-number.log");
  CHECK(verify_env_setting(zero, "NCCL_MAX_NCHANNELS", "abc") == SettingStatus::mismatch);
  CHECK(verify_env_setting(zero, "NCCL_MAX_NCHANNELS", "0") == SettingStatus::applied);
  const NcclLogFacts four = facts_of("real-three-points-rank0.log");  // "set by environment to 4."
  CHECK(verify_env_setting(four, "NCCL_MAX_NCHANNELS", "4") == SettingStatus::applied);
  CHECK(verify_env_setting(four, "NCCL_MAX_NCHANNELS", "0x4") == SettingStatus::applied);  // strtoll base 0
  CHECK(verify_env_setting(four, "NCCL_MAX_NCHANNELS", "4x") == SettingStatus::mismatch);  // NCCL took 4 of it
  CHECK(verify_env_setting(four, "NCCL_MAX_NCHANNELS", "") == SettingStatus::mismatch);
  CHECK(verify_env_setting(four, "NCCL_MAX_NCHANNELS", "5") == SettingStatus::mismatch);
}

TEST_CASE("a value the tuner replaces after reading it is a mismatch") {
  const NcclLogFacts facts = facts_of("nthreads-replaced.log");
  CHECK(facts.set_by_environment.at("NCCL_NTHREADS") == "100.");  // read as given...
  CHECK(verify_env_setting(facts, "NCCL_NTHREADS", "100") == SettingStatus::mismatch);  // ...then replaced
  CHECK_THAT(facts.invalid.at("NCCL_NTHREADS"), ContainsSubstring("must be a multiple of 32"));
}

TEST_CASE("an algorithm that serves no call of the run is a mismatch") {
  const NcclLogFacts facts = facts_of("algo-serves-no-call.log");
  CHECK(verify_env_setting(facts, "NCCL_ALGO", "Tree") == SettingStatus::mismatch);
  CHECK_THAT(facts.invalid.at("NCCL_ALGO"), ContainsSubstring("no algorithm/protocol available for function AllGather"));
  CHECK(facts.invalid.count("NCCL_PROTO") == 0);  // NCCL's message names only what was set
}

TEST_CASE("NCCL's unrelated \"Invalid\" lines are not read as a refused variable") {
  NcclLogFacts facts;
  scan_nccl_log(
      "\n[2026-11-29 14:02:11] vm:1:1 [0] bootstrap.cc:102 NCCL WARN Invalid NCCL_COMM_ID, please use format: "
      "<ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>\n"
      "[2026-11-29 14:02:11] vm:1:1 [0] init.cc:1860 NCCL WARN Invalid config cgaClusterSize attribute value 9\n"
      "[2026-11-29 14:02:11] vm:1:1 [0] graph/tuning.cc:104 NCCL WARN Unrecognized element token \"x\" when parsing "
      "\"x\"\n",  // no NCCL_ALGO or NCCL_PROTO logged with that value: nobody to blame
      facts);
  CHECK(facts.invalid.empty());
}

TEST_CASE("each point's facts hold only its own lines; the process's keep the cached variables") {
  // A real worker log: three inits (NCCL_PROTO LL, LL128, Simple), NCCL_MAX_NCHANNELS=4 for
  // the process, logged at the first init only. Fed to the follower one init at a time.
  const std::string text = read_file(std::string(NCCLSWEEP_TEST_DATA) + "/nccl_log_verify/real-three-points-rank0.log");
  std::vector<std::string> inits;  // each piece starts at an "Init START" line
  for (std::size_t at = 0; at < text.size();) {
    std::size_t next = text.find("- Init START", text.find("- Init START", at) + 1);
    next = next == std::string::npos ? text.size() : text.rfind('\n', next) + 1;
    inits.push_back(text.substr(at, next - at));
    at = next;
  }
  REQUIRE(inits.size() == 3);
  const auto path = ncclsweep::testing::scratch_root() / "points.log";
  std::filesystem::remove(path);
  NcclLogFollower log(path.string());
  const char* protocols[] = {"LL", "LL128", "Simple"};
  for (int point = 0; point < 3; ++point) {
    log.mark_point();
    std::ofstream(path, std::ios::app | std::ios::binary) << inits[static_cast<std::size_t>(point)];
    log.update();
    INFO("point " << point);
    CHECK(log.point_facts().set_by_environment.at("NCCL_PROTO") == protocols[point]);
    CHECK(verify_env_setting(log.point_facts(), "NCCL_PROTO", protocols[point]) == SettingStatus::applied);
    CHECK(verify_env_setting(log.process_facts(), "NCCL_MAX_NCHANNELS", "4") == SettingStatus::applied);
    // The cached variable appears in the first point's lines only.
    CHECK(log.point_facts().set_by_environment.count("NCCL_MAX_NCHANNELS") == (point == 0 ? 1U : 0U));
  }
  std::filesystem::remove(path);
}

TEST_CASE("one reader splits NCCL's lines into origin, level and message") {
  const auto info = read_nccl_log_line("gpu7:4242:4250 [3] NCCL INFO AllGather: opCount 0 count 8");
  REQUIRE(info);
  CHECK(info->origin == "gpu7:4242:4250 [3]");
  CHECK(info->level == "INFO");
  CHECK(info->message == "AllGather: opCount 0 count 8");
  CHECK(process_of(info->origin) == "gpu7:4242 [3]");  // threads of one process are one rank
  const auto warn = read_nccl_log_line("h:1:2 [0] NCCL WARN Invalid value x for NCCL_PROTO");
  REQUIRE(warn);
  CHECK(warn->level == "WARN");
  CHECK_FALSE(read_nccl_log_line("plain text without the tag"));
  CHECK(process_of("no-colons") == "no-colons");

  std::vector<std::pair<std::string, int>> lines;
  for_each_log_line("a\r\nb  \n\nc", [&](std::string_view line, int n) { lines.emplace_back(std::string(line), n); });
  CHECK(lines == std::vector<std::pair<std::string, int>>{{"a", 1}, {"b", 2}, {"", 3}, {"c", 4}});
}
