// Value kinds of NCCL variables and config fields: each kind takes what NCCL 2.28's
// parsers take and refuses, with the reason and a suggestion, what they would misread.
#include <limits>
#include <string>

#include "catch_compat.hpp"
#include "core/utf8.hpp"
#include "spec/config_fields.hpp"
#include "spec/nccl_variables.hpp"
#include "spec/value_kind.hpp"

using namespace ncclsweep;

namespace {

// The problem with NAME=VALUE under the variable's own kind, "" when accepted.
std::string variable_problem(const char* name, const char* value) {
  const NcclVariable* variable = find_nccl_variable(name);
  REQUIRE(variable != nullptr);
  const auto problem = check_value(name, variable->value, value);
  return problem ? problem->what : std::string();
}

std::string variable_fix(const char* name, const char* value) {
  const auto problem = check_value(name, find_nccl_variable(name)->value, value);
  return problem ? problem->fix : std::string();
}

}  // namespace

TEST_CASE("whole numbers are read as NCCL writes them: decimal or 0x hex, nothing after") {
  CHECK(parse_whole_number("0") == 0);
  CHECK(parse_whole_number("128") == 128);
  CHECK(parse_whole_number("-3") == -3);
  CHECK(parse_whole_number("0x8001") == 0x8001);
  CHECK(parse_whole_number("-9223372036854775808") == std::numeric_limits<long long>::min());
  for (const char* bad : {"", "-", "abc", "4M", "1.5", " 8", "8 ", "+8", "010", "0x", "9223372036854775808", "1e3"}) {
    INFO(bad);
    CHECK_FALSE(parse_whole_number(bad).has_value());
  }
}

TEST_CASE("integers: a word, a negative count and a value past NCCL's limit are refused") {
  CHECK(variable_problem("NCCL_IB_QPS_PER_CONNECTION", "4").empty());
  CHECK(variable_problem("NCCL_IB_QPS_PER_CONNECTION", "abc") == "NCCL_IB_QPS_PER_CONNECTION: 'abc' is not a whole number");
  CHECK(variable_problem("NCCL_IB_QPS_PER_CONNECTION", "-3") == "NCCL_IB_QPS_PER_CONNECTION: -3 is out of range");
  CHECK(variable_problem("NCCL_IB_QPS_PER_CONNECTION", "129") == "NCCL_IB_QPS_PER_CONNECTION: 129 is out of range");
  CHECK(variable_fix("NCCL_IB_QPS_PER_CONNECTION", "-3") ==
        "NCCL_IB_QPS_PER_CONNECTION takes a whole number from 1 to 128 (decimal, or hexadecimal as 0x..)");
  CHECK(variable_problem("NCCL_IB_PKEY", "0x8001").empty());
  // strtoll(base 0) would read "010" as 8.
  CHECK(variable_problem("NCCL_MAX_NCHANNELS", "010") ==
        "NCCL_MAX_NCHANNELS: '010' starts with 0, which makes NCCL read it as octal (did you mean 10?)");
  CHECK(variable_problem("NCCL_NTHREADS", "256").empty());
  CHECK(variable_problem("NCCL_NTHREADS", "100") == "NCCL_NTHREADS: 100 is not a multiple of 32");
}

TEST_CASE("booleans take 0 or 1 and suggest them for words NCCL would read as 0") {
  CHECK(variable_problem("NCCL_IB_SPLIT_DATA_ON_QPS", "1").empty());
  CHECK(variable_problem("NCCL_IB_SPLIT_DATA_ON_QPS", "true") == "NCCL_IB_SPLIT_DATA_ON_QPS: 'true' is not 0 or 1 (did you mean 1?)");
  CHECK(variable_problem("NCCL_NVLS_ENABLE", "2").empty());  // 2: NCCL decides
  CHECK(variable_problem("NCCL_P2P_DISABLE", "2") == "NCCL_P2P_DISABLE: 2 is out of range");
  CHECK(variable_problem("NCCL_P2P_DISABLE", "off") == "NCCL_P2P_DISABLE: 'off' is not 0 or 1 (did you mean 0?)");
}

TEST_CASE("byte counts take no unit: 4M would reach NCCL as 4") {
  CHECK(variable_problem("NCCL_BUFFSIZE", "4194304").empty());
  CHECK(variable_problem("NCCL_BUFFSIZE", "4M") ==
        "NCCL_BUFFSIZE: '4M': NCCL reads no units and would see 4 (did you mean 4194304?)");
  CHECK(variable_problem("NCCL_BUFFSIZE", "0") == "NCCL_BUFFSIZE: 0 is out of range");
  CHECK_THAT(variable_fix("NCCL_BUFFSIZE", "4M"), ContainsSubstring("written without a unit"));
}

TEST_CASE("protocol and algorithm lists follow NCCL's syntax, without case, with suggestions") {
  for (const char* good : {"Simple", "simple", "LL,LL128", "^LL128", "LL,,Simple", "Simple;allreduce:^LL",
                           "^LL128;AllGather:LL128", "allreduce:LL;broadcast:Simple"}) {
    INFO(good);
    CHECK(variable_problem("NCCL_PROTO", good).empty());
  }
  CHECK(variable_problem("NCCL_PROTO", "Simpel") == "NCCL_PROTO: unknown protocol 'Simpel' (did you mean Simple?)");
  CHECK(variable_problem("NCCL_ALGO", "Rnig") == "NCCL_ALGO: unknown algorithm 'Rnig' (did you mean Ring?)");
  CHECK(variable_problem("NCCL_ALGO", "Ring,NVLStree").empty());
  CHECK(variable_problem("NCCL_ALGO", "allreduce:Tree;allgather:Ring").empty());
  CHECK(variable_problem("NCCL_ALGO", "all_reduce:Tree") == "NCCL_ALGO: unknown collective 'all_reduce' (did you mean AllReduce?)");
  CHECK(variable_problem("NCCL_ALGO", "Ring;Tree") ==
        "NCCL_ALGO: every section after the first names its collective: 'Tree' (e.g. allreduce:Tree)");
  CHECK(variable_problem("NCCL_ALGO", "allreduce:") == "NCCL_ALGO: allreduce: names no algorithms");
  CHECK(variable_problem("NCCL_ALGO", "allreduce:Tree:Ring") == "NCCL_ALGO: 'allreduce:Tree:Ring' has more than one ':'");
  CHECK(variable_problem("NCCL_PROTO", "LL,^Simple") ==
        "NCCL_PROTO: '^' excludes the whole list and goes first, not before 'Simple' (did you mean ^LL,Simple?)");
  CHECK(variable_problem("NCCL_PROTO", "^") == "NCCL_PROTO: names no protocols");
  CHECK(variable_problem("NCCL_PROTO", "Bogus") == "NCCL_PROTO: unknown protocol 'Bogus'");
}

TEST_CASE("interface and HCA lists: ^ then =, names, ports only for HCAs") {
  for (const char* good : {"eth0", "^docker,lo", "=eth0", "^=eth0,eth1", "ib"}) {
    INFO(good);
    CHECK(variable_problem("NCCL_SOCKET_IFNAME", good).empty());
  }
  for (const char* good : {"mlx5_0:1,mlx5_1:1", "^=mlx5_2", "=mlx5_0:1", "mlx5"}) {
    INFO(good);
    CHECK(variable_problem("NCCL_IB_HCA", good).empty());
  }
  CHECK(variable_problem("NCCL_IB_HCA", "=^mlx5_0") == "NCCL_IB_HCA: '^' goes before '=' (did you mean ^=mlx5_0?)");
  CHECK(variable_problem("NCCL_IB_HCA", "mlx5_0,^mlx5_1") ==
        "NCCL_IB_HCA: '^' applies to the whole list and goes first, not before 'mlx5_1' (did you mean ^mlx5_0,mlx5_1?)");
  CHECK(variable_problem("NCCL_IB_HCA", "mlx5_0:x") == "NCCL_IB_HCA: 'mlx5_0:x': the port must be a number from 1 to 255");
  CHECK(variable_problem("NCCL_IB_HCA", "mlx5_0:0") == "NCCL_IB_HCA: 'mlx5_0:0': the port must be a number from 1 to 255");
  CHECK(variable_problem("NCCL_SOCKET_IFNAME", "eth0:1") == "NCCL_SOCKET_IFNAME: 'eth0:1': interfaces take no ':port' (NCCL ignores it here)");
  CHECK(variable_problem("NCCL_SOCKET_IFNAME", "eth 0") == "NCCL_SOCKET_IFNAME: 'eth 0' holds ' ', which no device name has");
  CHECK(variable_problem("NCCL_SOCKET_IFNAME", "averyveryverylongname") ==
        "NCCL_SOCKET_IFNAME: 'averyveryverylongname' is longer than a device name can be (15 characters)");
  CHECK(variable_problem("NCCL_SOCKET_IFNAME", "^,") == "NCCL_SOCKET_IFNAME: names no interfaces");
}

TEST_CASE("levels NCCL compares exactly: a lower-case name would be ignored without a word") {
  CHECK(variable_problem("NCCL_P2P_LEVEL", "NVL").empty());
  CHECK(variable_problem("NCCL_P2P_LEVEL", "3").empty());  // old-style number
  CHECK(variable_problem("NCCL_P2P_LEVEL", "sys") ==
        "NCCL_P2P_LEVEL: unknown level 'sys' (did you mean SYS?); NCCL compares these names case-sensitively");
  CHECK(variable_problem("NCCL_P2P_LEVEL", "9") == "NCCL_P2P_LEVEL: '9' is not a level name or a number from 0 to 5");
  CHECK(variable_problem("NCCL_SOCKET_FAMILY", "AF_INET6").empty());
  CHECK(variable_problem("NCCL_SOCKET_FAMILY", "af_inet") ==
        "NCCL_SOCKET_FAMILY: unknown family 'af_inet' (did you mean AF_INET?); NCCL compares these names case-sensitively");
  // Names NCCL compares without case.
  CHECK(variable_problem("NCCL_DEBUG", "info").empty());
  CHECK(variable_problem("NCCL_DEBUG", "INFOO") == "NCCL_DEBUG: unknown level 'INFOO' (did you mean INFO?)");
  CHECK(variable_problem("NCCL_DEBUG_SUBSYS", "^INIT,COLL").empty());
  CHECK(variable_problem("NCCL_DEBUG_SUBSYS", "INIT,TUNNING") == "NCCL_DEBUG_SUBSYS: unknown subsystem 'TUNNING' (did you mean TUNING?)");
  CHECK(variable_problem("NCCL_NETDEVS_POLICY", "MAX:2").empty());
  CHECK(variable_problem("NCCL_NETDEVS_POLICY", "max:0") == "NCCL_NETDEVS_POLICY: unknown policy 'max:0' (did you mean MAX:N?)");
}

TEST_CASE("every kind refuses an empty value and control characters; text takes the rest") {
  CHECK(variable_problem("NCCL_TOPO_FILE", "/etc/nccl/topo with space.xml").empty());
  CHECK(variable_problem("NCCL_TOPO_FILE", "") == "NCCL_TOPO_FILE: the value is empty, which NCCL treats as not set");
  CHECK(variable_problem("NCCL_PROTO", "LL\nSimple") == "NCCL_PROTO: the value 'LL\nSimple' holds a control character (code 10)");
}

TEST_CASE("every variable and config field has a kind whose description names what it takes") {
  for (const auto& variable : nccl_variables()) {
    INFO(variable.name);
    CHECK_FALSE(describe(variable.value).empty());
    if (variable.value.syntax == ValueSyntax::integer || variable.value.syntax == ValueSyntax::bytes) {
      CHECK(variable.value.min <= variable.value.max);
    }
    if (variable.value.syntax == ValueSyntax::name || variable.value.syntax == ValueSyntax::name_list ||
        variable.value.syntax == ValueSyntax::per_collective_list) {
      CHECK_FALSE(variable.value.names.empty());
    }
  }
  CHECK(find_config_field("max_ctas")->value.max == 64);
  CHECK(find_config_field("cta_policy")->value.max == 2);
  CHECK_FALSE(find_config_field("blocking")->not_sweepable.empty());
  const auto sweepable = sweepable_config_field_names();
  CHECK(std::find(sweepable.begin(), sweepable.end(), "blocking") == sweepable.end());
  CHECK(std::find(sweepable.begin(), sweepable.end(), "max_ctas") != sweepable.end());
}

TEST_CASE("UTF-8: the first bad byte is found; valid multi-byte text passes") {
  CHECK_FALSE(first_invalid_utf8("NCCL_PROTO: Simple").has_value());
  CHECK_FALSE(first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80").has_value());
  CHECK(first_invalid_utf8("ab\xff") == 2);
  CHECK(first_invalid_utf8("a\xc3") == 1);            // truncated
  CHECK(first_invalid_utf8("\xc0\xaf") == 0);         // overlong '/'
  CHECK(first_invalid_utf8("x\xed\xa0\x80") == 1);    // a surrogate
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0); // past U+10FFFF
  CHECK(first_invalid_utf8("\x80") == 0);             // stray continuation byte
}
