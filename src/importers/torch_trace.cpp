// torch.profiler (Kineto) chrome traces. A collective appears as a record_param_comms
// CPU op and again as an NCCL kernel event with the same args ("Collective name",
// "In msg nelems", "Out msg nelems", "dtype", "Group size"): only the CPU ops are
// counted, the kernels only when a trace has no such CPU op.
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "importers/import_counter.hpp"
#include "importers/importers.hpp"
#include "importers/input_files.hpp"

namespace ncclsweep {
namespace {

using nlohmann::json;

// PyTorch's collective names -> (ncclsweep collective, size from the output buffer?).
struct TorchCollective {
  const char* collective;
  bool size_from_output;
};
const std::map<std::string, TorchCollective> kTorchCollectives = {
    {"allgather", {"all_gather", true}},
    {"_allgather_base", {"all_gather", true}},
    {"all_gather_into_tensor", {"all_gather", true}},
    {"allgather_into_tensor_coalesced", {"all_gather", true}},
    {"all_gather_into_tensor_coalesced", {"all_gather", true}},
    {"reduce_scatter", {"reduce_scatter", false}},
    {"_reduce_scatter_base", {"reduce_scatter", false}},
    {"reduce_scatter_tensor", {"reduce_scatter", false}},
    {"reduce_scatter_tensor_coalesced", {"reduce_scatter", false}},
    {"allreduce", {"all_reduce", false}},
    {"allreduce_coalesced", {"all_reduce", false}},
    {"broadcast", {"broadcast", false}},
    {"reduce", {"reduce", false}},
    {"all_to_all", {"alltoall", false}},
    {"all_to_allv", {"alltoall", false}},
    {"alltoall", {"alltoall", false}},
    {"alltoall_base", {"alltoall", false}},
    {"send", {"sendrecv", false}},
};

const std::map<std::string, std::string> kTorchDtypes = {
    {"Float", "float32"},   {"BFloat16", "bfloat16"}, {"Half", "float16"},   {"Double", "float64"},
    {"Int", "int32"},       {"Long", "int64"},        {"Char", "int8"},      {"Byte", "uint8"},
    {"Float8_e4m3fn", "fp8_e4m3"}, {"Float8_e5m2", "fp8_e5m2"},
};

bool is_comm_event(const json& e, bool cpu) {
  if (!e.is_object() || !e.contains("args") || !e["args"].is_object() || !e["args"].contains("Collective name")) return false;
  const std::string cat = e.value("cat", "");
  return cpu ? (e.value("name", "") == "record_param_comms" && cat == "cpu_op") : cat == "kernel";
}

std::int64_t integer_arg(const json& args, const char* key, const std::string& file) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer()) {
    throw UsageError(std::string("a communication event lacks an integer '") + key + "'",
                     "export the trace with a PyTorch that records collective args (2.1 or later)", {file});
  }
  return it->get<std::int64_t>();
}

}  // namespace

CommProfile import_torch_trace(const std::string& pattern, int iterations) {
  const auto files = expand_pattern(pattern, "torch.profiler traces");
  ImportCounter counter;
  std::map<std::string, long> skipped;
  std::set<std::string> steps;
  long kernels_ignored = 0;
  for (const auto& file : files) {
    json trace;
    try {
      trace = json::parse(read_text_file(file));
    } catch (const json::parse_error& e) {
      throw UsageError(std::string("not a complete JSON trace (truncated?): ") + e.what(),
                       "pass the .json or .json.gz that torch.profiler's export_chrome_trace wrote", {file});
    }
    if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
      throw UsageError("JSON without a traceEvents array: not a chrome trace", "pass a torch.profiler trace export", {file});
    }
    const auto& events = trace["traceEvents"];
    bool has_cpu = false;
    for (const auto& e : events) has_cpu = has_cpu || is_comm_event(e, true);
    for (const auto& e : events) {
      if (!e.is_object()) continue;
      const std::string name = e.value("name", "");
      if (name.rfind("ProfilerStep#", 0) == 0) steps.insert(file + name);
      if (!is_comm_event(e, has_cpu)) {
        kernels_ignored += has_cpu && is_comm_event(e, false);
        continue;
      }
      const auto& args = e["args"];
      const std::string torch_name = args["Collective name"].is_string() ? args["Collective name"].get<std::string>() : "";
      const auto known = kTorchCollectives.find(torch_name);
      if (known == kTorchCollectives.end()) {
        ++skipped[torch_name];
        continue;
      }
      const std::string torch_dtype = args.value("dtype", "");
      const auto dtype = kTorchDtypes.find(torch_dtype);
      if (dtype == kTorchDtypes.end()) throw UsageError("unknown dtype '" + torch_dtype + "' in a communication event", {}, {file});
      const auto elements = integer_arg(args, known->second.size_from_output ? "Out msg nelems" : "In msg nelems", file);
      const auto group_size = static_cast<int>(integer_arg(args, "Group size", file));
      const Bytes bytes = static_cast<Bytes>(elements) * data_type(dtype->second).bytes;
      counter.add(known->second.collective, bytes, dtype->second, "", group_size, file);
    }
  }
  if (counter.empty()) {
    throw UsageError("no communication events (record_param_comms or NCCL kernels with 'Collective name') in " +
                         std::to_string(files.size()) + " trace file(s) matching '" + pattern + "'",
                     "profile the training steps themselves, with record_shapes=True", {files.front()});
  }
  // Every file is one rank's trace; its ProfilerStep#N events are its iterations.
  const int traced_steps = static_cast<int>(steps.size() / files.size());
  const int divide_by = iterations > 0 ? iterations : traced_steps;
  auto profile = counter.profile(pattern + " (" + std::to_string(files.size()) + " traces)", "torch trace", divide_by);
  if (iterations == 0 && traced_steps > 0) profile.notes.push_back("iterations counted from ProfilerStep#N events");
  if (kernels_ignored > 0) {
    profile.notes.push_back(std::to_string(kernels_ignored) + " NCCL kernel events not counted again (their record_param_comms were)");
  }
  for (const auto& [name, n] : skipped) profile.notes.push_back("skipped " + std::to_string(n) + " '" + name + "' events");
  profile.notes.push_back("torch traces do not record the reduction operator: op left empty");
  return profile;
}

}  // namespace ncclsweep
