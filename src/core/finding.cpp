#include "core/finding.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/errors.hpp"
#include "core/list_text.hpp"

namespace ncclsweep::doctor {

std::string_view name_of(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "info";
}

namespace {

Severity severity_from(const std::string& name) {
  for (Severity s : {Severity::info, Severity::warning, Severity::error}) {
    if (name_of(s) == name) return s;
  }
  throw UsageError("unknown finding severity '" + name + "'", "use info, warning or error");
}

void append_unique(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const auto& s : from) {
    if (std::find(into.begin(), into.end(), s) == into.end()) into.push_back(s);
  }
}

}  // namespace

std::vector<Finding> merge_findings(std::vector<Finding> findings) {
  std::vector<Finding> merged;
  std::map<std::tuple<std::string, Severity, std::string, std::string>, std::size_t> index;
  for (auto& f : findings) {
    const auto key = std::make_tuple(f.check, f.severity, f.evidence, f.fix);
    const auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, merged.size());
      merged.push_back(std::move(f));
      continue;
    }
    Finding& into = merged[it->second];
    std::set<int> ranks(into.ranks.begin(), into.ranks.end());
    ranks.insert(f.ranks.begin(), f.ranks.end());
    into.ranks.assign(ranks.begin(), ranks.end());
    append_unique(into.hosts, f.hosts);
  }
  for (auto& f : merged) std::sort(f.ranks.begin(), f.ranks.end());
  std::stable_sort(merged.begin(), merged.end(), [](const Finding& a, const Finding& b) {
    return a.severity != b.severity ? a.severity > b.severity : a.check < b.check;
  });
  return merged;
}

bool has_error(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::error; });
}

std::string compact_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out.empty() ? "-" : out;
}

namespace {

std::string joined(const std::vector<std::string>& items) { return items.empty() ? "-" : join_text(items, ","); }

std::string padded(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string findings_table(const std::vector<Finding>& findings) {
  std::size_t check_w = 5, ranks_w = 5, hosts_w = 5;
  for (const auto& f : findings) {
    check_w = std::max(check_w, f.check.size());
    ranks_w = std::max(ranks_w, compact_ranks(f.ranks).size());
    hosts_w = std::max(hosts_w, joined(f.hosts).size());
  }
  std::string out = padded("severity", 9) + padded("check", check_w + 2) + padded("ranks", ranks_w + 2) +
                    padded("hosts", hosts_w + 2) + "evidence\n";
  for (const auto& f : findings) {
    out += padded(std::string(name_of(f.severity)), 9) + padded(f.check, check_w + 2) +
           padded(compact_ranks(f.ranks), ranks_w + 2) + padded(joined(f.hosts), hosts_w + 2) + f.evidence + "\n";
    if (!f.fix.empty()) out += std::string(9, ' ') + "fix: " + f.fix + "\n";
  }
  return out;
}

void to_json(nlohmann::json& j, const Finding& f) {
  j = nlohmann::json{{"check", f.check},       {"severity", std::string(name_of(f.severity))},
                     {"ranks", f.ranks},       {"hosts", f.hosts},
                     {"evidence", f.evidence}, {"fix", f.fix}};
}

void from_json(const nlohmann::json& j, Finding& f) {
  j.at("check").get_to(f.check);
  f.severity = severity_from(j.at("severity").get<std::string>());
  j.at("ranks").get_to(f.ranks);
  j.at("hosts").get_to(f.hosts);
  j.at("evidence").get_to(f.evidence);
  j.at("fix").get_to(f.fix);
}

}  // namespace ncclsweep::doctor
