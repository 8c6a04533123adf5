#include "locate/locate_fault.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/errors.hpp"

namespace ncclsweep::locate {
namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw UsageError("--inject-fault '" + text + "': " + why,
                   "write RANK:slow=FACTOR (e.g. 3:slow=4) or link=HOSTA,HOSTB:slow=FACTOR, FACTOR from 1 to 100");
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
  if (factor.empty() || *end != '\0' || !(fault.factor >= 1) || fault.factor > 100) {
    refuse(text, "the factor '" + factor + "' is not a number from 1 to 100");
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
  if (target.empty() || target.size() > 7 || target.find_first_not_of("0123456789") != std::string::npos) {
    refuse(text, "'" + target + "' is neither a rank number nor link=HOSTA,HOSTB");
  }
  fault.rank = std::atoi(target.c_str());
  return fault;
}

double slowdown_for(const SlowFault& fault, int rank, const std::vector<int>& group_ranks,
                    const std::vector<std::string>& group_hosts) {
  if (!fault.active()) return 1;
  if (fault.rank >= 0) return rank == fault.rank ? fault.factor : 1;
  if (std::find(group_hosts.begin(), group_hosts.end(), fault.host_b) == group_hosts.end()) return 1;
  const auto first_of_a = std::find(group_hosts.begin(), group_hosts.end(), fault.host_a);
  if (first_of_a == group_hosts.end()) return 1;
  return group_ranks[static_cast<std::size_t>(first_of_a - group_hosts.begin())] == rank ? fault.factor : 1;
}

}  // namespace ncclsweep::locate
