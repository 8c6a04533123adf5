#include "runtime/worker_protocol.hpp"

#include "core/units.hpp"
#include "results/record_json.hpp"

namespace ncclsweep {

using nlohmann::json;

void to_json(json& j, const RunSpec& s) {
  std::vector<std::string> collectives, dtypes, ops;
  for (const auto* c : s.collectives) collectives.emplace_back(c->name);
  for (const auto* t : s.dtypes) dtypes.emplace_back(t->name);
  for (const auto op : s.ops) ops.emplace_back(name_of(op));
  j = json{{"name", s.name},   {"collectives", collectives}, {"sizes", s.sizes}, {"dtypes", dtypes},
           {"ops", ops},       {"root", s.root},             {"warmup", s.warmup}, {"iters", s.iters},
           {"check", s.check}, {"engine", s.engine}, {"timeout_s", s.timeout_s}};
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
  j.at("engine").get_to(s.engine);
  if (j.contains("timeout_s")) j.at("timeout_s").get_to(s.timeout_s);
}

void to_json(json& j, const WorkerStart& w) {
  j = json{{"type", "start"},        {"rank", w.rank},   {"ranks", w.ranks},
           {"local_rank", w.local_rank}, {"group", w.group}, {"spec", w.spec},
           {"corrupt_rank", w.corrupt_rank}, {"nccl_log_path", w.nccl_log_path}, {"points", w.points},
           {"done", w.done}, {"fault", w.fault}};
}
void from_json(const json& j, WorkerStart& w) {
  j.at("rank").get_to(w.rank);
  j.at("ranks").get_to(w.ranks);
  j.at("local_rank").get_to(w.local_rank);
  j.at("group").get_to(w.group);
  j.at("spec").get_to(w.spec);
  j.at("corrupt_rank").get_to(w.corrupt_rank);
  j.at("nccl_log_path").get_to(w.nccl_log_path);
  j.at("points").get_to(w.points);
  if (j.contains("done")) j.at("done").get_to(w.done);
  if (j.contains("fault")) j.at("fault").get_to(w.fault);
}

}  // namespace ncclsweep
