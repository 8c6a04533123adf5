#include "workload/sizes_output.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "core/errors.hpp"
#include "workload/histogram.hpp"

namespace ncclsweep {
namespace {

std::string calls_text(double calls) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, calls == static_cast<double>(static_cast<long long>(calls)) ? "%.0f" : "%.3f", calls);
  return buffer;
}

std::string group_text(const std::string& kind, int size) { return (kind.empty() ? "group" : kind) + " " + std::to_string(size); }

std::string table(const CommProfile& profile, const std::vector<HistogramRow>& rows) {
  std::string out = "# " + profile.source + "\n# calls: " + profile.basis + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-15s %-10s %14s %10s %-9s %-5s %10s %6s  %s\n", "collective", "group", "bytes",
                "size", "dtype", "op", "calls", "share", "origin");
  out += line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-15s %-10s %14llu %10s %-9s %-5s %10s %5.1f%%  %s%s\n", r.collective.c_str(),
                  group_text(r.group, r.group_size).c_str(), static_cast<unsigned long long>(r.bytes),
                  format_bytes(r.bytes).c_str(), r.dtype.empty() ? "-" : r.dtype.c_str(), r.op.empty() ? "-" : r.op.c_str(),
                  calls_text(r.calls).c_str(), 100.0 * r.share_of_bytes, r.via_nccl ? "" : "[not NCCL] ",
                  r.origins.front().c_str());
    out += line;
    // Equal-sized buckets or blocks can be many: show two origins and count the rest.
    for (std::size_t i = 1; i < r.origins.size() && i < 3; ++i) out += std::string(97, ' ') + r.origins[i] + "\n";
    if (r.origins.size() > 3) out += std::string(97, ' ') + "(and " + std::to_string(r.origins.size() - 3) + " more)\n";
  }
  for (const auto& note : profile.notes) out += "# note: " + note + "\n";
  return out;
}

std::string yaml(const CommProfile& profile, const std::vector<HistogramRow>& rows) {
  std::string out = "# ncclsweep sizes from " + profile.source + "\n# calls " + profile.basis + "\n";
  for (const auto& r : rows) {
    if (!r.via_nccl) continue;
    out += "# " + std::to_string(r.bytes) + " B (" + format_bytes(r.bytes) + ") " + r.collective + " " +
           (r.dtype.empty() ? "" : r.dtype + " ") + "on " + group_text(r.group, r.group_size) + ", " +
           calls_text(r.calls) + " calls: " + r.origins.front() + (r.origins.size() > 1 ? " (and more)" : "") + "\n";
  }
  std::string sizes, collectives;
  for (const auto size : distinct_sizes(rows)) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
  for (const auto& c : distinct_collectives(rows)) collectives += (collectives.empty() ? "" : ", ") + c;
  out += "sizes: [" + sizes + "]\ncollectives: [" + collectives + "]\n";
  return out;
}

std::string json_text(const CommProfile& profile, const std::vector<HistogramRow>& rows) {
  nlohmann::ordered_json j;
  j["source"] = profile.source;
  j["basis"] = profile.basis;
  j["per_iteration"] = profile.per_iteration;
  auto& uses = j["collectives"] = nlohmann::ordered_json::array();
  for (const auto& u : profile.uses) {
    uses.push_back({{"collective", u.collective}, {"bytes", u.bytes}, {"dtype", u.dtype}, {"op", u.op},
                    {"group", {{"kind", u.group.kind == ParallelKind::unknown ? "" : name_of(u.group.kind)},
                               {"size", u.group.size}, {"stride", u.group.stride}}},
                    {"calls", u.calls}, {"origin", u.origin}, {"via_nccl", u.via_nccl}});
  }
  auto& hist = j["histogram"] = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    hist.push_back({{"collective", r.collective}, {"bytes", r.bytes}, {"dtype", r.dtype}, {"op", r.op},
                    {"group_size", r.group_size}, {"group", r.group}, {"calls", r.calls},
                    {"share_of_bytes", r.share_of_bytes}, {"via_nccl", r.via_nccl}, {"origins", r.origins}});
  }
  j["sizes"] = distinct_sizes(rows);
  j["notes"] = profile.notes;
  return j.dump(2) + "\n";
}

}  // namespace

SizesFormat parse_sizes_format(const std::string& text) {
  if (text == "table") return SizesFormat::table;
  if (text == "yaml") return SizesFormat::yaml;
  if (text == "json") return SizesFormat::json;
  throw UsageError("unknown format '" + text + "'", "use table, yaml or json");
}

std::string format_sizes(const CommProfile& profile, SizesFormat format) {
  const auto rows = histogram(profile);
  switch (format) {
    case SizesFormat::table: return table(profile, rows);
    case SizesFormat::yaml: return yaml(profile, rows);
    case SizesFormat::json: return json_text(profile, rows);
  }
  return {};
}

}  // namespace ncclsweep
