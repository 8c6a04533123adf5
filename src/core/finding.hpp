#pragma once
// What a preflight check concludes: one finding names the check, how bad it is, the
// ranks and hosts it concerns, what was seen and how to fix it.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ncclsweep::doctor {

enum class Severity { info, warning, error };
std::string_view name_of(Severity s);

struct Finding {
  std::string check;  // "env.uniform", "placement.numa", ...
  Severity severity = Severity::info;
  std::vector<int> ranks;          // ascending
  std::vector<std::string> hosts;  // distinct, in order of first appearance
  std::string evidence;
  std::string fix;  // empty for plain information
};

// Findings that differ only in ranks and hosts become one, with the ranks and hosts
// united; the result is sorted errors first, then warnings, then information, each by
// check name (first appearance among equals).
std::vector<Finding> merge_findings(std::vector<Finding> findings);

bool has_error(const std::vector<Finding>& findings);

// "0-3,7" for {0,1,2,3,7}.
std::string compact_ranks(const std::vector<int>& ranks);

// The findings table for a terminal: one line per finding, the fix on the next.
std::string findings_table(const std::vector<Finding>& findings);

void to_json(nlohmann::json& j, const Finding& f);
void from_json(const nlohmann::json& j, Finding& f);

}  // namespace ncclsweep::doctor
