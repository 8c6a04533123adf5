// YAML text -> Sweep. Reads each key with its own small function; every message names
// the file, line and column of the offending node and says how to fix it.
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "core/checked_number.hpp"
#include "core/input_file.hpp"
#include "core/repeat_order.hpp"
#include "core/run_options.hpp"
#include "core/suggest.hpp"
#include "core/utf8.hpp"
#include "spec/run_name.hpp"
#include "spec/run_spec.hpp"
#include "spec/sweep.hpp"
#include "core/yaml_guard.hpp"

namespace ncclsweep {
namespace {

class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}

  SourcePosition at(const YAML::Node& node) const { return yaml_position(file_, node); }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what, const std::string& fix) const {
    throw UsageError(what, fix, at(node));
  }

  std::string scalar(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, key + " must be a single value, not a " + shape(node), "write " + key + ": VALUE");
    return node.Scalar();
  }

  long long integer(const YAML::Node& node, const std::string& key, long long min, long long max, long long example) const {
    const std::string text = scalar(node, key);
    const auto parsed = parse_integer_text(text);
    if (!parsed) fail(node, key + " must be an integer, not '" + text + "'", "write e.g. " + key + ": " + std::to_string(example));
    const long long value = *parsed;
    if (value < min || value > max) {
      fail(node, key + " " + text + " is out of range", key + " takes " + std::to_string(min) + ".." + std::to_string(max));
    }
    return value;
  }

  bool boolean(const YAML::Node& node, const std::string& key) const {
    const std::string text = scalar(node, key);
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    fail(node, key + " must be true or false, not '" + text + "'", "write " + key + ": true");
  }

  // A YAML list of scalars or one comma-separated string -> "a,b,c" for the run flags' parsers.
  std::string comma_list(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) return node.Scalar();
    if (!node.IsSequence()) fail(node, key + " must be a list or a comma-separated string, not a " + shape(node), "write " + key + ": [a, b] or " + key + ": a,b");
    if (node.size() == 0) fail(node, key + " is an empty list", "name at least one value, or leave " + key + " out for the default");
    std::string joined;
    for (const auto& item : node) {
      if (!item.IsScalar()) fail(item, key + " entries must be single values, not a " + shape(item), "write " + key + ": [a, b]");
      if (!joined.empty()) joined += ",";
      joined += item.Scalar();
    }
    return joined;
  }

  // Calls a run-flag parser; its UsageError gets this node's position.
  template <typename Parse>
  auto parsed(const YAML::Node& node, Parse&& parse) const -> decltype(parse()) {
    try {
      return parse();
    } catch (const UsageError& e) {
      throw UsageError(e.what(), e.fix(), at(node));
    }
  }

  // name: [v1, v2] (or one scalar) for env and config maps.
  std::vector<SweepAxis> axes(const YAML::Node& node, const std::string& key) const {
    if (!node.IsMap()) fail(node, key + " must be a map of name -> list of values, not a " + shape(node), "write " + key + ": {NAME: [v1, v2]} (or NAME: [v1, v2] on indented lines below)");
    std::vector<SweepAxis> out;
    for (const auto& entry : node) {
      SweepAxis axis{scalar(entry.first, key + " names"), {}, at(entry.first)};
      const YAML::Node& values = entry.second;
      if (values.IsScalar()) {
        axis.values.push_back(values.Scalar());
        axis.value_where.push_back(at(values));
      } else if (values.IsSequence()) {
        if (values.size() == 0) fail(values, axis.name + " has an empty list of values", "give at least one value, or remove " + axis.name);
        for (const auto& v : values) {
          const std::string value = scalar(v, axis.name + " values");
          if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end()) {
            fail(v, axis.name + " lists " + value + " twice", "list each value once");
          }
          axis.values.push_back(value);
          axis.value_where.push_back(at(v));
        }
      } else {
        fail(values, axis.name + " must be a list of values, not a " + shape(values), "write " + axis.name + ": [v1, v2]");
      }
      out.push_back(std::move(axis));
    }
    if (out.empty()) fail(node, key + " is empty", "name at least one setting, or leave " + key + " out");
    return out;
  }

  // search: {method: racing|coordinate|grid, budget: 0.33|20m, confidence: 0.95, bands: auto|[1M, 64M]}
  SearchSpec search(const YAML::Node& node) const {
    if (!node.IsMap()) fail(node, "search must be a map, not a " + shape(node), "write search: {method: racing, budget: 0.33}");
    SearchSpec spec;
    spec.where = at(node);
    for (const auto& entry : node) {
      const std::string key = scalar(entry.first, "search keys");
      const YAML::Node& value = entry.second;
      if (key == "method") {
        const std::string method = scalar(value, "search.method");
        const auto found = kSearchMethodNames.find(method);
        if (!found) fail(value, "unknown search method '" + method + "'" + did_you_mean(method, kSearchMethodNames.names()), "method is one of " + kSearchMethodNames.joined());
        spec.method = *found;
      } else if (key == "budget") {
        const std::string text = scalar(value, "search.budget");
        spec.budget = parsed(value, [&] { return parse_search_budget(text, "search.budget"); });
      } else if (key == "confidence") {
        const std::string text = scalar(value, "search.confidence");
        char* end = nullptr;
        spec.confidence = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(spec.confidence >= 0.5 && spec.confidence < 1)) {
          fail(value, "search.confidence '" + text + "' is not a probability from 0.5 to below 1", "write confidence: 0.95");
        }
      } else if (key == "bands") {
        if (value.IsScalar() && value.Scalar() == "auto") continue;
        const std::string text = comma_list(value, "search.bands");
        spec.band_edges = parsed(value, [&] { return parse_size_list(text); });
      } else {
        static const std::vector<std::string> keys{"method", "budget", "confidence", "bands"};
        fail(entry.first, "unknown search key '" + key + "'" + did_you_mean(key, keys), "search takes method, budget, confidence and bands");
      }
    }
    return spec;
  }

  PartialPoint partial_point(const YAML::Node& node, const std::string& key) const {
    if (!node.IsMap() || node.size() == 0) fail(node, key + " entries must be maps of setting -> value", "write e.g. - {NCCL_PROTO: LL, max_ctas: 8}");
    PartialPoint point{{}, at(node)};
    for (const auto& entry : node) {
      const std::string name = scalar(entry.first, key + " settings");
      point.values.emplace_back(name, scalar(entry.second, name));
      point.value_where.push_back(at(entry.second));
    }
    return point;
  }

  std::vector<PartialPoint> partial_points(const YAML::Node& node, const std::string& key) const {
    if (!node.IsSequence()) fail(node, key + " must be a list of partial points, not a " + shape(node), "write " + key + ": [{NCCL_PROTO: LL}], one partial point per entry");
    std::vector<PartialPoint> out;
    for (const auto& item : node) out.push_back(partial_point(item, key));
    return out;
  }

  std::vector<std::vector<std::string>> zip(const YAML::Node& node) const {
    const std::string fix = "write zip: [[NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS]] (lists of axes that vary together)";
    if (!node.IsSequence() || node.size() == 0) fail(node, "zip must be a list of lists of axis names", fix);
    std::vector<std::vector<std::string>> groups;
    const bool one_group = node[0].IsScalar();
    for (const auto& item : node) {
      if (one_group) {
        if (groups.empty()) groups.emplace_back();
        groups.back().push_back(scalar(item, "zip"));
        continue;
      }
      if (!item.IsSequence()) fail(item, "zip entries must be lists of axis names", fix);
      groups.emplace_back();
      for (const auto& name : item) groups.back().push_back(scalar(name, "zip"));
    }
    return groups;
  }

  // sizes: {workload: FILE}, {from_nccl_log | from_torch_trace: GLOB, iterations: N} or
  // {calls: [...], ranks: N, per_iteration: BOOL}.
  SizesSource sizes_source(const YAML::Node& node) const {
    const std::string fix =
        "write sizes: {workload: configs/workloads/NAME.yaml}, {from_nccl_log: 'logs/*.log'}, "
        "{from_torch_trace: trace.json} or {calls: [...]} (ncclsweep sizes --format yaml), or a size list";
    const std::vector<std::string> keys{"workload", "from_nccl_log", "from_torch_trace", "calls", "iterations", "ranks",
                                        "per_iteration"};
    SizesSource source;
    source.where = at(node);
    bool named = false;  // a source key seen
    const auto name = [&] { return std::string(name_of(source.kind)); };
    for (const auto& entry : node) {
      const std::string key = scalar(entry.first, "sizes keys");
      if (key == "calls") {
        if (named) fail(entry.first, "sizes names two sources (" + name() + ", calls)", fix);
        named = true;
        source.kind = SizesSourceKind::calls;
        source.calls = listed_calls(entry.second);
        source.where = at(entry.first);
      } else if (key == "ranks") {
        source.ranks = static_cast<int>(integer(entry.second, "ranks", 1, 1 << 24, 512));
      } else if (key == "per_iteration") {
        source.per_iteration = boolean(entry.second, "per_iteration");
      } else if (key == "workload" || key == "from_nccl_log" || key == "from_torch_trace") {
        if (named) fail(entry.first, "sizes names two sources (" + name() + ", " + key + ")", fix);
        named = true;
        source.kind = kSizesSourceKindNames.parse(key);
        source.path = scalar(entry.second, key);
        if (source.path.empty()) fail(entry.second, key + " is empty", fix);
        source.where = at(entry.first);
      } else if (key == "iterations") {
        source.iterations = static_cast<int>(integer(entry.second, "iterations", 1, 1000000, 10));
      } else {
        fail(entry.first, "unknown sizes key '" + key + "'" + did_you_mean(key, keys), fix);
      }
    }
    if (!named) fail(node, "sizes names no source", fix);
    if (source.iterations > 0 && (source.kind == SizesSourceKind::workload || source.kind == SizesSourceKind::calls)) {
      fail(node, "iterations applies to imported files, not " + name(), "drop iterations");
    }
    if (source.kind != SizesSourceKind::calls && (node["ranks"] || node["per_iteration"])) {
      fail(node, "ranks and per_iteration go with sizes: {calls: [...]}", "drop them: " + name() + " says both");
    }
    return source;
  }

  // calls: [{collective: all_gather, bytes: 64M, dtype: bfloat16, group: dp, group_size: 8,
  //          group_stride: 2, calls: 4, origin: "..."}, ...]
  std::vector<ListedCall> listed_calls(const YAML::Node& node) const {
    const std::string form =
        "write calls: [{collective: all_gather, bytes: 64M, dtype: bfloat16, group_size: 8, calls: 4}]";
    if (!node.IsSequence() || node.size() == 0) fail(node, "sizes calls must be a non-empty list", form);
    const std::vector<std::string> keys{"collective", "bytes", "dtype", "op", "group", "group_size", "group_stride",
                                        "calls", "origin"};
    std::vector<ListedCall> out;
    for (const auto& item : node) {
      if (!item.IsMap()) fail(item, "a sizes call must be a map, not a " + shape(item), form);
      ListedCall call;
      call.where = at(item);
      for (const auto& entry : item) {
        const std::string key = scalar(entry.first, "call keys");
        const YAML::Node& v = entry.second;
        if (key == "collective") {
          call.collective = parsed(v, [&] { return &collective(scalar(v, key)); });
        } else if (key == "bytes") {
          call.bytes = parsed(v, [&] { return parse_size(scalar(v, key)); });
          if (call.bytes == 0) fail(v, "a call of 0 bytes", "write its size, e.g. bytes: 64M");
        } else if (key == "dtype") {
          call.dtype = parsed(v, [&] { return &data_type(scalar(v, key)); });
        } else if (key == "op") {
          call.op = parsed(v, [&] { return reduce_op(scalar(v, key)); });
        } else if (key == "group") {
          const std::string group = scalar(v, key);
          call.group = kCommunicatorKindNames.find(group);
          if (!call.group || !is_parallel(*call.group)) {
            fail(v, "unknown group '" + group + "'", "use dp, tp, cp, ep, pp, dp-cp or edp, or leave group out");
          }
        } else if (key == "group_size") {
          call.group_size = static_cast<int>(integer(v, key, 1, 1 << 24, 8));
        } else if (key == "group_stride") {
          call.group_stride = static_cast<int>(integer(v, key, 1, 1 << 24, 2));
        } else if (key == "calls") {
          const std::string text = scalar(v, key);
          const auto calls = parse_finite_text(text);
          if (!calls || *calls <= 0 || *calls > 1e12) fail(v, "calls must be a positive number, not '" + text + "'", "write e.g. calls: 4");
          call.calls = *calls;
        } else if (key == "origin") {
          call.origin = scalar(v, key);
        } else {
          fail(entry.first, "unknown call key '" + key + "'" + did_you_mean(key, keys), form);
        }
      }
      if (call.collective == nullptr) fail(item, "a sizes call names no collective", form);
      if (call.bytes == 0) fail(item, "a sizes call has no bytes", form);
      if (call.group && (call.group_size == 0 || call.group_stride == 0)) {
        fail(item, "group " + std::string(name_of(*call.group)) + " needs group_size and group_stride", "write both, as ncclsweep sizes --format yaml does");
      }
      out.push_back(std::move(call));
    }
    return out;
  }

  // groups: intra-node | inter-node | workload | world | dp | {stride: K} | {size: N} | {workload: dp}.
  CommSplitRequest groups(const YAML::Node& node) const {
    if (node.IsMap() && node.size() == 1) {
      const auto entry = *node.begin();
      const std::string key = scalar(entry.first, "groups keys");
      const std::string value = scalar(entry.second, key);
      if (key == "workload") {
        CommSplitRequest request = parse_comm_split_request(value, at(entry.second));
        if (request.workload || !is_parallel(request.kind)) {
          fail(entry.second, "workload group '" + value + "' is not a group kind", "use dp, tp, cp, ep, pp, dp-cp or edp");
        }
        return request;
      }
      if (key == "stride" || key == "size") return parse_comm_split_request(key + ":" + value, at(entry.second));
      fail(entry.first, "unknown groups key '" + key + "'", "write groups: {stride: 2}, {size: 4} or {workload: dp}");
    }
    if (!node.IsScalar()) {
      fail(node, "groups must be a name or a one-key map",
           "write groups: intra-node, inter-node, workload, {stride: K}, {size: N} or {workload: dp}");
    }
    return parse_comm_split_request(node.Scalar(), at(node));
  }

  // compute: {kind: gemm, shape: [M, N, K], dtype: bfloat16} (docs/overlap.md).
  ComputeLoad compute_load(const YAML::Node& node) const {
    const std::string form = "write compute: {kind: gemm, shape: [8192, 8192, 8192], dtype: bfloat16}";
    if (!node.IsMap()) fail(node, "compute must be a map, not a " + shape(node), form);
    for (const auto& entry : node) {
      const std::string key = scalar(entry.first, "compute keys");
      if (key != "kind" && key != "shape" && key != "dtype") {
        fail(entry.first, "unknown compute key '" + key + "'" + did_you_mean(key, {"kind", "shape", "dtype"}),
             "compute takes kind, shape and dtype");
      }
    }
    for (const char* key : {"kind", "shape", "dtype"}) {
      if (!node[key]) fail(node, std::string("compute has no ") + key, form);
    }
    const YAML::Node dims = node["shape"];
    if (!dims.IsSequence() || dims.size() != 3) fail(dims, "compute shape must be a list [M, N, K]", form);
    std::string text = scalar(node["kind"], "compute kind") + ":";
    for (std::size_t i = 0; i < 3; ++i) {
      text += std::to_string(integer(dims[i], "compute shape", 1, 1 << 20, 8192)) + (i < 2 ? "x" : ":");
    }
    text += scalar(node["dtype"], "compute dtype");
    return parsed(node, [&] { return parse_compute_load(text, "compute"); });
  }

 private:
  static std::string shape(const YAML::Node& node) {
    if (node.IsMap()) return "map";
    if (node.IsSequence()) return "list";
    if (node.IsNull()) return "null";
    return "value";
  }
  const std::string& file_;
};

using KeyReader = std::function<void(const Reader&, const YAML::Node&, Sweep&)>;

const std::vector<std::pair<std::string, KeyReader>>& key_readers() {
  static const std::vector<std::pair<std::string, KeyReader>> readers = {
      {"name", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         s.measurements.name = r.scalar(n, "name");
         if (const std::string reason = unsafe_run_name_reason(s.measurements.name); !reason.empty()) {
           r.fail(n, reason + " (it names a directory under the results root)",
                  "use letters, digits, '-', '_' and '.', e.g. name: nvls-sweep");
         }
       }},
      {"description", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.description = r.scalar(n, "description"); }},
      {"collectives", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "collectives");
         s.measurements.collectives = r.parsed(n, [&] { return parse_collective_list(text); });
       }},
      {"sizes", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         if (n.IsMap()) {
           s.sizes_from = r.sizes_source(n);
           s.sizes_where = r.at(n);  // refusals of the calls it gives that no listed call names
           return;
         }
         const std::string text = r.comma_list(n, "sizes");
         s.measurements.sizes = r.parsed(n, [&] { return parse_size_list(text); });
         s.sizes_where = r.at(n);
       }},
      {"dtypes", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "dtypes");
         s.measurements.dtypes = r.parsed(n, [&] { return parse_dtype_list(text); });
         s.dtypes_where = r.at(n);
       }},
      {"ops", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "ops");
         s.measurements.ops = r.parsed(n, [&] { return parse_op_list(text); });
         s.ops_where = r.at(n);
       }},
      {"buffers", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "buffers");
         s.measurements.buffer_modes = r.parsed(n, [&] { return parse_buffer_mode_list(text); });
       }},
      {"launch", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "launch");
         s.measurements.launch_modes = r.parsed(n, [&] { return parse_launch_mode_list(text); });
       }},
      {"buffer_footprint", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "buffer_footprint");
         s.measurements.footprints = r.parsed(n, [&] { return parse_footprint_list(text); });
         s.footprint_where = r.at(n);
       }},
      {"cache", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string text = r.comma_list(n, "cache");
         s.measurements.cache_states = r.parsed(n, [&] { return parse_cache_state_list(text); });
       }},
      {"compute", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.measurements.compute = r.compute_load(n); }},
      {"root",
       [](const Reader& r, const YAML::Node& n, Sweep& s) {
         s.measurements.root = static_cast<int>(r.integer(n, "root", 0, 1 << 20, 0));
         s.root_where = r.at(n);
       }},
      {"warmup", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.measurements.warmup = static_cast<int>(r.integer(n, "warmup", 0, 1000000, 5)); }},
      {"iters", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.measurements.iters = static_cast<int>(r.integer(n, "iters", 1, 1000000, 20)); }},  // absent: noise-based
      {"check", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.measurements.check = r.boolean(n, "check"); }},
      {"timeout", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.measurements.timeout_s = static_cast<int>(r.integer(n, "timeout", 1, 604800, 600)); }},
      {"engine", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string engine = r.scalar(n, "engine");
         s.engine_where = r.at(n);
         s.measurements.engine = kEngineNames.find(engine);
         if (!s.measurements.engine) {
           r.fail(n, "unknown engine '" + engine + "'" + did_you_mean(engine, kEngineNames.names()),
                   "engine is one of " + kEngineNames.joined());
         }
       }},
      {"env", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.env = r.axes(n, "env"); }},
      {"config", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.config = r.axes(n, "config"); }},
      {"include", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.include = r.partial_points(n, "include"); }},
      {"exclude", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.exclude = r.partial_points(n, "exclude"); }},
      {"zip", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         s.zip = r.zip(n);
         s.zip_where = r.at(n);
       }},
      {"baseline", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.baseline = r.partial_point(n, "baseline"); }},
      {"repeats", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.repeats = static_cast<int>(r.integer(n, "repeats", 1, 10000, 3)); }},
      {"order", [](const Reader& r, const YAML::Node& n, Sweep& s) {
         const std::string order = r.scalar(n, "order");
         const auto known = kRepeatOrderNames.find(order);
         if (!known) {
           r.fail(n, "unknown order '" + order + "'" + did_you_mean(order, kRepeatOrderNames.names()),
                   "order is one of " + kRepeatOrderNames.joined());
         }
         s.order = *known;
       }},
      {"seed", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.seed = static_cast<std::uint64_t>(r.integer(n, "seed", 0, 0x7fffffffffffffffLL, 7)); }},
      {"groups", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.communicators = r.groups(n); }},
      {"search", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.search = r.search(n); }},
      {"allow_unknown_env", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.allow_unknown_env = r.boolean(n, "allow_unknown_env"); }},
      {"allow_unknown_values", [](const Reader& r, const YAML::Node& n, Sweep& s) { s.allow_unknown_values = r.boolean(n, "allow_unknown_values"); }},
  };
  return readers;
}

}  // namespace

const std::vector<std::string>& sweep_file_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& [name, reader] : key_readers()) k.push_back(name);
    return k;
  }();
  return keys;
}

namespace {

// Every byte of a sweep file reaches YAML, labels, JSON and the environment of every
// rank: all of them want UTF-8, so a stray byte is refused where it stands.
void check_utf8(const std::string& text, const std::string& name) {
  const auto bad = first_invalid_utf8(text);
  if (!bad) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[*bad]));
  throw UsageError("the file is not valid UTF-8 (byte " + std::string(byte) + ")",
                   "save it as UTF-8; NCCL variable names and values are plain ASCII", position_at(name, text, *bad));
}

}  // namespace

Sweep load_sweep_text(const std::string& text, const std::string& name, const SweepContext& context) {
  check_utf8(text, name);
  YAML::Node root;
  try {
    root = load_one_yaml_document(text, name);
  } catch (const YAML::ParserException& e) {
    throw UsageError("YAML syntax error: " + e.msg, "check the brackets, quotes and indentation here",
                     yaml_position(name, e.mark));
  }
  guard_yaml_document(root, name, kMaxSweepNodes, kMaxSweepDepth);
  if (root.IsNull()) throw UsageError("the sweep file is empty", "see sweeps/smoke.yaml for a start", {name, 0, 0});
  if (!root.IsMap()) {
    throw UsageError("a sweep file must be a map of keys (name, collectives, sizes, env, ...)",
                     "see docs/sweep-files.md", yaml_position(name, root));
  }
  const Reader reader(name);
  Sweep sweep;
  sweep.file = name;
  // The run command's defaults, so a sweep file may name only what it changes.
  sweep.measurements.name = "sweep";
  set_default_measurements(sweep.measurements);
  for (const auto& entry : root) {
    const std::string key = reader.scalar(entry.first, "keys");
    const auto& readers = key_readers();
    const auto it = std::find_if(readers.begin(), readers.end(), [&](const auto& r) { return r.first == key; });
    if (it == readers.end()) {
      reader.fail(entry.first, "unknown key '" + key + "'" + did_you_mean(key, sweep_file_keys()),
                  "sweep files know: " + [] {
                    std::string all;
                    for (const auto& k : sweep_file_keys()) all += (all.empty() ? "" : ", ") + k;
                    return all;
                  }());
    }
    it->second(reader, entry.second, sweep);
  }
  check_sweep(sweep, context);
  return sweep;
}

Sweep load_sweep_file(const std::string& path, const SweepContext& context) {
  return load_sweep_text(read_input_file(path, kSettingsFileInput), path, context);
}

}  // namespace ncclsweep
