#include "workload/sizes_output.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "core/errors.hpp"
#include "core/printf_text.hpp"
#include "workload/histogram.hpp"

namespace ncclsweep {
namespace {

std::string calls_text(double calls) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, calls == static_cast<double>(static_cast<long long>(calls)) ? "%.0f" : "%.6g", calls);
  return buffer;
}

// Names in the files: "" where the source did not say (JSON), "-" in the table.
std::string name_or_empty(const DataType* dtype) { return dtype != nullptr ? std::string(dtype->name) : std::string(); }
std::string name_or_empty(std::optional<ReduceOp> op) { return op ? std::string(name_of(*op)) : std::string(); }
std::string name_or_dash(const std::string& name) { return name.empty() ? "-" : name; }

std::string group_text(const std::string& kind, int size) { return (kind.empty() ? "group" : kind) + " " + std::to_string(size); }

// Whether a use's groups cross nodes; empty where the node size or the use's rank layout
// (imports name only a group's size) is not known.
std::optional<NodeSpan> span_of(const CommProfile& profile, const CommUse& use) {
  if (profile.ranks_per_node < 1 || profile.layout_ranks < 1 || use.group.stride < 1 || use.group.size < 1) {
    return std::nullopt;
  }
  return node_span(use.group, profile.layout_ranks, profile.ranks_per_node);
}

// Each histogram row's span: that of the uses it merged (histogram()'s key), mixed where
// they differ, empty where one is not known.
std::vector<std::optional<NodeSpan>> row_spans(const CommProfile& profile, const std::vector<HistogramRow>& rows) {
  std::vector<std::optional<NodeSpan>> of_use, spans;
  for (const CommUse& u : profile.uses) of_use.push_back(span_of(profile, u));
  for (const HistogramRow& r : rows) {
    std::optional<NodeSpan> span;
    bool first = true;
    for (std::size_t i = 0; i < profile.uses.size(); ++i) {
      const CommUse& u = profile.uses[i];
      if (std::tie(r.collective, r.bytes, r.dtype, r.op, r.group_size, r.via_nccl) !=
          std::tie(u.collective, u.bytes, u.dtype, u.op, u.group.size, u.via_nccl)) {
        continue;
      }
      const auto& mine = of_use[i];
      if (first) span = mine;
      else if (!mine || !span) span.reset();
      else if (*mine != *span) span = NodeSpan::mixed;
      first = false;
    }
    spans.push_back(span);
  }
  return spans;
}

std::string span_text(const std::optional<NodeSpan>& span) { return span ? std::string(kNodeSpanNames.name(*span)) : "-"; }
nlohmann::ordered_json span_json(const std::optional<NodeSpan>& span) {
  return span ? nlohmann::ordered_json(std::string(kNodeSpanNames.name(*span))) : nlohmann::ordered_json(nullptr);
}

// What the network column rests on, or how to get it: the layout's groups placed on nodes
// of ranks_per_node ranks in rank order. Imports name no layout: nothing to say.
std::string nodes_line(const CommProfile& profile) {
  if (profile.layout_ranks == 0) return {};
  if (profile.ranks_per_node == 0) {
    return "# note: which calls cross nodes is not known: give --gpus-per-node N (gpus_per_node: in the workload), "
           "ranks filling nodes of N in rank order\n";
  }
  return "# network: ranks fill nodes of " + std::to_string(profile.ranks_per_node) +
         " in rank order; inter-node calls use the network, intra-node ones stay inside a node, mixed ones do both\n";
}

constexpr std::size_t kOriginColumn = 108;  // where the table's origin column starts

std::string table(const CommProfile& profile, const std::vector<HistogramRow>& rows) {
  std::string out = "# " + profile.source + "\n# calls: " + profile.basis + "\n";
  out += nodes_line(profile);
  const auto spans = row_spans(profile, rows);
  out += printf_text("%-15s %-10s %-10s %14s %10s %-9s %-5s %10s %6s  %s\n", "collective", "group",
                "network", "bytes", "size", "dtype", "op", "calls", "share", "origin");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const HistogramRow& r = rows[i];
    out += printf_text("%-15s %-10s %-10s %14llu %10s %-9s %-5s %10s %5.1f%%  %s%s\n",
                  std::string(r.collective->name).c_str(), group_text(r.group, r.group_size).c_str(),
                  span_text(spans[i]).c_str(), static_cast<unsigned long long>(r.bytes),
                  format_bytes(r.bytes).c_str(), name_or_dash(name_or_empty(r.dtype)).c_str(),
                  name_or_dash(name_or_empty(r.op)).c_str(),
                  calls_text(r.calls).c_str(), 100.0 * r.share_of_bytes, r.via_nccl ? "" : "[not NCCL] ",
                  r.origins.front().c_str());
    // Equal-sized buckets or blocks can be many: show two origins and count the rest.
    for (std::size_t i = 1; i < r.origins.size() && i < 3; ++i) out += std::string(kOriginColumn, ' ') + r.origins[i] + "\n";
    if (r.origins.size() > 3) out += std::string(kOriginColumn, ' ') + "(and " + std::to_string(r.origins.size() - 3) + " more)\n";
  }
  for (const auto& note : profile.notes) out += "# note: " + note + "\n";
  return out;
}

// A YAML scalar that reads back as the same string (origins hold ':', '(' and '#').
std::string quoted(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A `sizes:` block that measures what the job sends: each collective at its own sizes,
// dtypes and groups (not every size with every collective), with the call counts that
// weigh it per iteration. The sweep loader reads it back (sizes: {calls: [...]}).
std::string yaml(const CommProfile& profile) {
  std::string out = "# ncclsweep sizes from " + profile.source + "\n";
  if (!profile.basis.empty()) out += "# calls: " + profile.basis + "\n";
  for (const auto& note : profile.notes) out += "# note: " + note + "\n";
  // Uses that differ only in origin (equal buckets, layers) become one call, counts summed.
  std::vector<CommUse> merged;
  std::vector<int> more;
  for (const CommUse& u : profile.uses) {
    const auto same = [&](const CommUse& m) {
      return std::tie(m.collective, m.bytes, m.dtype, m.op, m.group.kind, m.group.size, m.group.stride, m.via_nccl) ==
             std::tie(u.collective, u.bytes, u.dtype, u.op, u.group.kind, u.group.size, u.group.stride, u.via_nccl);
    };
    const auto it = std::find_if(merged.begin(), merged.end(), same);
    if (it == merged.end()) {
      merged.push_back(u);
      more.push_back(0);
    } else {
      it->calls += u.calls;
      ++more[static_cast<std::size_t>(it - merged.begin())];
    }
  }
  for (std::size_t i = 0; i < merged.size(); ++i) {
    if (more[i] > 0) merged[i].origin += " (and " + std::to_string(more[i]) + " more)";
  }
  std::string listed;
  for (const CommUse& u : merged) {
    if (!u.via_nccl) {
      out += "# not measured (sent outside NCCL): " + std::string(u.collective->name) + " " + std::to_string(u.bytes) + " B, " + u.origin + "\n";
      continue;
    }
    // A call of 0 bytes moves nothing to time, and the sweep loader refuses `bytes: 0`.
    if (u.bytes == 0) {
      out += "# not measured (0 bytes): " + std::string(u.collective->name) + ", " + calls_text(u.calls) + " calls, " + u.origin + "\n";
      continue;
    }
    listed += "    - {collective: " + std::string(u.collective->name) + ", bytes: " + std::to_string(u.bytes);
    if (u.dtype != nullptr) listed += ", dtype: " + std::string(u.dtype->name);
    if (u.op) listed += ", op: " + std::string(name_of(*u.op));
    if (u.group.kind != ParallelKind::unknown) listed += ", group: " + name_of(u.group.kind);
    if (u.group.size > 0) listed += ", group_size: " + std::to_string(u.group.size);
    if (u.group.kind != ParallelKind::unknown && u.group.stride > 0) listed += ", group_stride: " + std::to_string(u.group.stride);
    listed += ", calls: " + calls_text(u.calls) + ", origin: " + quoted(u.origin) + "}  # " + format_bytes(u.bytes) +
              (span_of(profile, u) ? ", " + span_text(span_of(profile, u)) : std::string()) + "\n";
  }
  out += "sizes:\n";
  if (profile.layout_ranks > 0) out += "  ranks: " + std::to_string(profile.layout_ranks) + "  # the groups apply on runs of this many ranks\n";
  if (!profile.per_iteration) out += "  per_iteration: false\n";
  // Nothing sent through NCCL leaves nothing to measure; the loader refuses an empty list.
  out += listed.empty() ? "  calls: []  # no call of this input sends bytes through NCCL\n" : "  calls:\n" + listed;
  return out;
}

std::string json_text(const CommProfile& profile, const std::vector<HistogramRow>& rows) {
  nlohmann::ordered_json j;
  j["source"] = profile.source;
  j["basis"] = profile.basis;
  j["per_iteration"] = profile.per_iteration;
  j["gpus_per_node"] = profile.ranks_per_node > 0 ? nlohmann::ordered_json(profile.ranks_per_node) : nlohmann::ordered_json(nullptr);
  auto& uses = j["collectives"] = nlohmann::ordered_json::array();
  for (const auto& u : profile.uses) {
    uses.push_back({{"collective", std::string(u.collective->name)}, {"bytes", u.bytes}, {"dtype", name_or_empty(u.dtype)},
                    {"op", name_or_empty(u.op)},
                    {"group", {{"kind", u.group.kind == ParallelKind::unknown ? "" : name_of(u.group.kind)},
                               {"size", u.group.size}, {"stride", u.group.stride}, {"network", span_json(span_of(profile, u))}}},
                    {"calls", u.calls}, {"origin", u.origin}, {"via_nccl", u.via_nccl}});
  }
  auto& hist = j["histogram"] = nlohmann::ordered_json::array();
  const auto spans = row_spans(profile, rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const HistogramRow& r = rows[i];
    hist.push_back({{"collective", std::string(r.collective->name)}, {"bytes", r.bytes}, {"dtype", name_or_empty(r.dtype)},
                    {"op", name_or_empty(r.op)},
                    {"group_size", r.group_size}, {"group", r.group}, {"calls", r.calls},
                    {"network", span_json(spans[i])}, {"share_of_bytes", r.share_of_bytes}, {"via_nccl", r.via_nccl},
                    {"origins", r.origins}});
  }
  j["sizes"] = distinct_sizes(rows);
  j["notes"] = profile.notes;
  return j.dump(2) + "\n";
}

}  // namespace

std::string format_sizes(const CommProfile& profile, SizesFormat format) {
  const auto rows = histogram(profile);
  switch (format) {
    case SizesFormat::table: return table(profile, rows);
    case SizesFormat::yaml: return yaml(profile);
    case SizesFormat::json: return json_text(profile, rows);
  }
  return {};
}

}  // namespace ncclsweep
