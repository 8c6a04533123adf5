#include "locate/locate_fault.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/errors.hpp"

namespace ncclsweep::locate {
namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw UsageError("--inject-fault '" + text + "': " + why,
                   "write RANK:slow=FACTOR (e.g. 3:slow=4), link=HOSTA,HOSTB:slow=FACTOR or ranks=R1,R2:slow=FACTOR, "
                   "FACTOR a whole number from 1 to 100");
}

bool is_rank_number(const std::string& text) {
  return !text.empty() && text.size() <= 7 && text.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

SlowFault parse_slow_fault(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) refuse(text, "no target before ':slow='");
  const std::string target = text.substr(0, colon), action = text.substr(colon + 1);
  if (action.rfind("slow=", 0) != 0) refuse(text, "locate injects only slow=FACTOR");
  SlowFault fault;
  const std::string factor = action.substr(5);
  char* end = nullptr;
  fault.factor = std::strtod(factor.c_str(), &end);
  if (factor.empty() || *end != '\0' || !(fault.factor >= 1) || fault.factor > 100 ||
      fault.factor != std::floor(fault.factor)) {
    refuse(text, "the factor '" + factor + "' is not a whole number from 1 to 100 (each call runs that many times)");
  }
  if (target.rfind("link=", 0) == 0) {
    const std::string hosts = target.substr(5);
    const auto comma = hosts.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == hosts.size()) {
      refuse(text, "a link names two hosts: link=HOSTA,HOSTB");
    }
    fault.host_a = hosts.substr(0, comma);
    fault.host_b = hosts.substr(comma + 1);
    if (fault.host_a == fault.host_b) refuse(text, "a link joins two different hosts");
    return fault;
  }
  if (target.rfind("ranks=", 0) == 0) {
    const std::string ranks = target.substr(6);
    const auto comma = ranks.find(',');
    const std::string first = ranks.substr(0, comma), second = comma == std::string::npos ? "" : ranks.substr(comma + 1);
    if (!is_rank_number(first) || !is_rank_number(second)) refuse(text, "a GPU pair names two ranks: ranks=R1,R2");
    fault.pair = {std::atoi(first.c_str()), std::atoi(second.c_str())};
    if (fault.pair[0] == fault.pair[1]) refuse(text, "a pair joins two different ranks");
    if (fault.pair[0] > fault.pair[1]) std::swap(fault.pair[0], fault.pair[1]);
    return fault;
  }
  if (!is_rank_number(target)) refuse(text, "'" + target + "' is neither a rank number, link=HOSTA,HOSTB nor ranks=R1,R2");
  fault.rank = std::atoi(target.c_str());
  return fault;
}

double slowdown_for(const SlowFault& fault, const std::vector<int>& group_ranks,
                    const std::vector<std::string>& group_hosts) {
  if (!fault.active()) return 1;
  const auto holds = [](const auto& list, const auto& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  };
  bool slowed = false;
  if (fault.rank >= 0) {
    slowed = holds(group_ranks, fault.rank);
  } else if (!fault.pair.empty()) {
    slowed = group_ranks == fault.pair;
  } else {
    slowed = holds(group_hosts, fault.host_a) && holds(group_hosts, fault.host_b);
  }
  return slowed ? fault.factor : 1;
}

}  // namespace ncclsweep::locate
