#include "processes/worker_protocol.hpp"

#include <algorithm>
#include <iterator>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "results/record_json.hpp"

namespace ncclsweep {

using nlohmann::json;

namespace {

json split_json(const CommSplit& g) { return json{{"kind", name_of(g.kind)}, {"size", g.size}, {"stride", g.stride}}; }
CommSplit split_from(const json& j) {
  return CommSplit{kCommunicatorKindNames.parse(j.at("kind").get<std::string>()), j.at("size").get<int>(),
                   j.at("stride").get<int>()};
}

json footprint_json(const BufferFootprint& f) { return json{{"mode", name_of(f.mode)}, {"bytes", f.bytes}}; }
BufferFootprint footprint_from(const json& j) {
  return BufferFootprint{kFootprintModeNames.parse(j.at("mode").get<std::string>()), j.at("bytes").get<Bytes>()};
}

// A planned call: its call, then what the plan adds. Its split is the plan's
// communicator call.comm (0: the world), so it is not sent.
json planned_call_json(const PlannedCall& p) {
  return json{{"call", p.call},
              {"reduces", p.reduces},
              {"requested_bytes", p.requested_bytes},
              {"total_bytes", p.total_bytes},
              {"footprint", footprint_json(p.footprint)}};
}

PlannedCall planned_call_from(const json& j, const std::vector<CommSplit>& comms) {
  PlannedCall p;
  j.at("call").get_to(p.call);
  j.at("reduces").get_to(p.reduces);
  j.at("requested_bytes").get_to(p.requested_bytes);
  j.at("total_bytes").get_to(p.total_bytes);
  p.footprint = footprint_from(j.at("footprint"));
  const CollectiveCall& c = p.call;
  if (c.comm < 0 || c.comm > static_cast<int>(comms.size())) {
    throw RuntimeFailure("worker start", "a planned call names communicator " + std::to_string(c.comm) + " of " +
                                             std::to_string(comms.size()));
  }
  p.split = c.comm == 0 ? CommSplit{} : comms[static_cast<std::size_t>(c.comm - 1)];
  return p;
}

constexpr std::string_view kFabricOps[] = {"collective", "barrier", "split", "free_splits"};

}  // namespace

std::string message_type(const json& j) { return j.is_object() ? j.value("type", std::string()) : std::string(); }

// A config setting as the rank checked it: the field by name, the value as written and,
// for an integer field, its number (null for a text field), taken as sent.
void to_json(json& j, const ConfigSetting& s) {
  j = json{{"field", s.name()}, {"value", s.value}, {"number", s.number ? json(*s.number) : json(nullptr)}};
}
void from_json(const json& j, ConfigSetting& s) {
  const std::string name = j.at("field").get<std::string>();
  s.field = find_config_field(name);
  if (s.field == nullptr) throw RuntimeFailure("worker message", "unknown config field '" + name + "'");
  s.value = j.at("value").get<std::string>();
  const json& number = j.at("number");
  s.number = number.is_null() ? std::nullopt : std::optional<int>(number.get<int>());
}

void to_json(json& j, const CollectiveCall& c) {
  j = json{{"collective", c.kind->name},
           {"dtype", c.dtype->name},
           {"op", name_of(c.op)},
           {"count", c.count},
           {"root", c.root},
           {"placement", name_of(c.placement)},
           {"comm", c.comm},
           {"buffers", name_of(c.buffers)},
           {"launch", name_of(c.launch)},
           {"footprint_bytes", c.footprint_bytes},
           {"cache", name_of(c.cache)}};
}

void from_json(const json& j, CollectiveCall& c) {
  c.kind = &collective(j.at("collective").get<std::string>());
  c.dtype = &data_type(j.at("dtype").get<std::string>());
  c.op = reduce_op(j.at("op").get<std::string>());
  j.at("count").get_to(c.count);
  j.at("root").get_to(c.root);
  c.placement = parse_placement(j.at("placement").get<std::string>());
  j.at("comm").get_to(c.comm);
  c.buffers = parse_buffer_mode(j.at("buffers").get<std::string>());
  c.launch = parse_launch_mode(j.at("launch").get<std::string>());
  j.at("footprint_bytes").get_to(c.footprint_bytes);
  c.cache = kCacheStateNames.parse(j.at("cache").get<std::string>());
}

void to_json(json& j, const MeasurementPlan& plan) {
  json calls = json::array(), comms = json::array();
  for (const PlannedCall& p : plan.calls) calls.push_back(planned_call_json(p));
  for (const CommSplit& split : plan.comms) comms.push_back(split_json(split));
  j = json{{"calls", calls}, {"comms", comms}, {"notes", plan.notes}};
}

void from_json(const json& j, MeasurementPlan& plan) {
  plan.comms.clear();
  for (const json& split : j.at("comms")) plan.comms.push_back(split_from(split));
  plan.calls.clear();
  for (const json& c : j.at("calls")) plan.calls.push_back(planned_call_from(c, plan.comms));
  j.at("notes").get_to(plan.notes);
}

void to_json(json& j, const RunSpec& s) {
  std::vector<std::string> collectives, dtypes, ops;
  for (const auto* c : s.collectives) collectives.emplace_back(c->name);
  for (const auto* t : s.dtypes) dtypes.emplace_back(t->name);
  for (const auto op : s.ops) ops.emplace_back(name_of(op));
  j = json{{"name", s.name},   {"collectives", collectives}, {"sizes", s.sizes}, {"dtypes", dtypes},
           {"ops", ops},       {"root", s.root},             {"warmup", s.warmup}, {"iters", s.iters},
           {"check", s.check}, {"engine", engine_name(s)},
           {"stopping", {{"target_spread", s.stopping.target_spread}, {"min_iters", s.stopping.min_iters},
                         {"max_iters", s.stopping.max_iters}, {"min_seconds", s.stopping.min_seconds},
                         {"max_seconds", s.stopping.max_seconds}}},
           {"repeats", s.repeats}, {"order", name_of(s.order)}, {"seed", s.seed},
           {"timeout_s", s.timeout_s}};
  // Groups and workload calls only when used, so plain runs' messages stay as they were.
  if (!s.split.is_world()) j["split"] = split_json(s.split);
  // Modes only when not the defaults, so plain runs' messages and fingerprints stay as they were.
  if (s.buffer_modes != std::vector<BufferMode>{BufferMode::cuda_malloc}) {
    for (const BufferMode m : s.buffer_modes) j["buffers"].push_back(std::string(name_of(m)));
  }
  if (s.launch_modes != std::vector<LaunchMode>{LaunchMode::stream}) {
    for (const LaunchMode m : s.launch_modes) j["launch"].push_back(std::string(name_of(m)));
  }
  if (s.footprints != std::vector<BufferFootprint>{BufferFootprint{}}) {
    for (const BufferFootprint& f : s.footprints) j["buffer_footprint"].push_back(label_of(f));
  }
  if (s.cache_states != std::vector<CacheState>{CacheState::warm}) {
    for (const CacheState c : s.cache_states) j["cache"].push_back(std::string(name_of(c)));
  }
  if (s.compute) j["compute"] = to_text(*s.compute);
  if (!s.calls.empty()) {
    json& calls = j["calls"] = json::array();
    for (const SizedCall& c : s.calls) {
      calls.push_back({{"collective", std::string(c.kind->name)}, {"dtype", std::string(c.dtype->name)}, {"op", std::string(name_of(c.op))},
                       {"bytes", c.bytes}, {"split", split_json(c.split)}});
    }
  }
}

void from_json(const json& j, RunSpec& s) {
  j.at("name").get_to(s.name);
  s.collectives.clear();
  for (const auto& c : j.at("collectives")) s.collectives.push_back(&collective(c.get<std::string>()));
  j.at("sizes").get_to(s.sizes);
  s.dtypes.clear();
  for (const auto& t : j.at("dtypes")) s.dtypes.push_back(&data_type(t.get<std::string>()));
  s.ops.clear();
  for (const auto& op : j.at("ops")) s.ops.push_back(reduce_op(op.get<std::string>()));
  j.at("root").get_to(s.root);
  j.at("warmup").get_to(s.warmup);
  j.at("iters").get_to(s.iters);
  j.at("check").get_to(s.check);
  const std::string engine = j.at("engine").get<std::string>();
  s.engine = engine.empty() ? std::nullopt : std::optional<EngineKind>(parse_engine(engine));
  s.split = j.contains("split") ? split_from(j.at("split")) : CommSplit{};
  s.buffer_modes = {BufferMode::cuda_malloc};
  if (j.contains("buffers")) {
    s.buffer_modes.clear();
    for (const auto& m : j.at("buffers")) s.buffer_modes.push_back(parse_buffer_mode_list(m.get<std::string>()).front());
  }
  s.launch_modes = {LaunchMode::stream};
  if (j.contains("launch")) {
    s.launch_modes.clear();
    for (const auto& m : j.at("launch")) s.launch_modes.push_back(parse_launch_mode_list(m.get<std::string>()).front());
  }
  s.footprints = {BufferFootprint{}};
  if (j.contains("buffer_footprint")) {
    s.footprints.clear();
    for (const auto& f : j.at("buffer_footprint")) s.footprints.push_back(parse_footprint_list(f.get<std::string>()).front());
  }
  s.cache_states = {CacheState::warm};
  if (j.contains("cache")) {
    s.cache_states.clear();
    for (const auto& c : j.at("cache")) s.cache_states.push_back(parse_cache_state_list(c.get<std::string>()).front());
  }
  s.compute.reset();
  if (j.contains("compute")) s.compute = parse_compute_load(j.at("compute").get<std::string>(), "worker start message");
  s.calls.clear();
  if (j.contains("calls")) {
    for (const auto& c : j.at("calls")) {
      s.calls.push_back({&collective(c.at("collective").get<std::string>()), &data_type(c.at("dtype").get<std::string>()),
                         reduce_op(c.at("op").get<std::string>()), c.at("bytes").get<Bytes>(), split_from(c.at("split"))});
    }
  }
  const json& stop = j.at("stopping");
  stop.at("target_spread").get_to(s.stopping.target_spread);
  stop.at("min_iters").get_to(s.stopping.min_iters);
  stop.at("max_iters").get_to(s.stopping.max_iters);
  stop.at("min_seconds").get_to(s.stopping.min_seconds);
  stop.at("max_seconds").get_to(s.stopping.max_seconds);
  j.at("repeats").get_to(s.repeats);
  s.order = parse_repeat_order(j.at("order").get<std::string>());
  j.at("seed").get_to(s.seed);
  if (j.contains("timeout_s")) j.at("timeout_s").get_to(s.timeout_s);
}

void to_json(json& j, const FaultInjection& f) {
  j = json{{"rank", f.rank},
           {"action", f.action == FaultAction::none ? std::string() : std::string(kFaultActionNames.name(f.action))},
           {"seconds", f.seconds},
           {"factor", f.factor},
           {"slowed", f.slowed},
           {"point", f.point},
           {"from_s", f.from_s},
           {"flap_s", f.flap_s}};
}
void from_json(const json& j, FaultInjection& f) {
  j.at("rank").get_to(f.rank);
  const std::string action = j.at("action").get<std::string>();
  f.action = action.empty() ? FaultAction::none : kFaultActionNames.parse(action);
  j.at("seconds").get_to(f.seconds);
  j.at("factor").get_to(f.factor);
  j.at("slowed").get_to(f.slowed);
  j.at("point").get_to(f.point);
  j.at("from_s").get_to(f.from_s);
  j.at("flap_s").get_to(f.flap_s);
}

void to_json(json& j, const WorkerStart& w) {
  j = json{{"rank", w.rank},
           {"ranks", w.ranks},
           {"local_rank", w.local_rank},
           {"isolation_group", w.group},
           {"spec", w.spec},
           {"plan", w.plan},
           {"corrupt_rank", w.corrupt_rank},
           {"nccl_log_path", w.nccl_log_path},
           {"done", w.done},
           {"fault", w.fault}};
}
void from_json(const json& j, WorkerStart& w) {
  j.at("rank").get_to(w.rank);
  j.at("ranks").get_to(w.ranks);
  j.at("local_rank").get_to(w.local_rank);
  j.at("isolation_group").get_to(w.group);
  j.at("spec").get_to(w.spec);
  j.at("plan").get_to(w.plan);
  j.at("corrupt_rank").get_to(w.corrupt_rank);
  j.at("nccl_log_path").get_to(w.nccl_log_path);
  j.at("done").get_to(w.done);
  j.at("fault").get_to(w.fault);
}

void to_json(json& j, const MeasureRequest& r) {
  j = json{{"point", r.point},         {"calls", r.calls},
           {"first_repeat", r.first_repeat}, {"repeats", r.repeats},
           {"order", std::string(name_of(r.order))}, {"slow_factor", r.slow_factor}};
}
void from_json(const json& j, MeasureRequest& r) {
  j.at("point").get_to(r.point);
  j.at("calls").get_to(r.calls);
  j.at("first_repeat").get_to(r.first_repeat);
  j.at("repeats").get_to(r.repeats);
  r.order = parse_repeat_order(j.at("order").get<std::string>());
  j.at("slow_factor").get_to(r.slow_factor);
}

void to_json(json& j, const WorkerError& e) {
  j = json{{"status", e.status}, {"message", e.message}};
  if (e.outcome) j["outcome"] = *e.outcome;
}
void from_json(const json& j, WorkerError& e) {
  j.at("status").get_to(e.status);
  j.at("message").get_to(e.message);
  e.outcome = j.contains("outcome") ? std::optional<PointOutcome>(j.at("outcome").get<PointOutcome>()) : std::nullopt;
}

void to_json(json& j, const FabricRequest& r) {
  j = json{{"op", kFabricOps[static_cast<std::size_t>(r.op)]},
           {"send", r.send_offset},
           {"recv", r.recv_offset},
           {"region", r.region_bytes},
           {"colors", r.colors}};
  if (r.call) j["call"] = *r.call;
}
void from_json(const json& j, FabricRequest& r) {
  const std::string op = j.at("op").get<std::string>();
  const auto known = std::find(std::begin(kFabricOps), std::end(kFabricOps), op);
  if (known == std::end(kFabricOps)) throw RuntimeFailure("worker message", "unknown fabric operation '" + op + "'");
  r.op = static_cast<FabricOp>(known - std::begin(kFabricOps));
  j.at("send").get_to(r.send_offset);
  j.at("recv").get_to(r.recv_offset);
  j.at("region").get_to(r.region_bytes);
  j.at("colors").get_to(r.colors);
  r.call = j.contains("call") ? std::optional<CollectiveCall>(j.at("call").get<CollectiveCall>()) : std::nullopt;
  if (r.op == FabricOp::collective && !r.call) throw RuntimeFailure("worker message", "a collective without its call");
}

}  // namespace ncclsweep
