// torch.profiler (Kineto) chrome traces. A collective appears as a record_param_comms
// CPU op and again as an NCCL kernel event with the same args ("Collective name",
// "In msg nelems", "Out msg nelems", "dtype", "Group size"): only the CPU ops are
// counted, the kernels only when a trace has no such CPU op.
#include <nlohmann/json.hpp>

#include <istream>
#include <map>
#include <optional>
#include <type_traits>
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

// One event of traceEvents, with only the fields the import reads: the trace is
// streamed (SAX), so memory stays one event, whatever the trace's size.
struct TraceEvent {
  std::string name, cat;
  bool has_args = false;
  json args = json::object();  // only kArgKeys
};
const std::set<std::string> kArgKeys = {"Collective name", "In msg nelems", "Out msg nelems", "dtype", "Group size"};

bool is_comm_event(const TraceEvent& e, bool cpu) {
  if (!e.has_args || !e.args.contains("Collective name")) return false;
  return cpu ? (e.name == "record_param_comms" && e.cat == "cpu_op") : e.cat == "kernel";
}

std::int64_t integer_arg(const json& args, const char* key, const std::string& file) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer() || (it->is_number_unsigned() && it->get<std::uint64_t>() > (1ULL << 62))) {
    throw UsageError(std::string("a communication event lacks an integer '") + key + "'",
                     "export the trace with a PyTorch that records collective args (2.1 or later)", {file});
  }
  return it->get<std::int64_t>();
}

// What one trace file adds: calls seen as CPU ops and, apart, as kernels (counted only
// when the trace has no CPU op; a kernel's bad args then matter only in that case).
struct TraceCounts {
  ImportCounter cpu, kernels;
  long cpu_events = 0, kernel_events = 0;
  std::map<std::string, long> skipped_cpu, skipped_kernels;
  std::optional<UsageError> kernel_error;
  std::set<std::string> steps;
};

void count_event(const TraceEvent& e, const std::string& file, TraceCounts& counts) {
  if (e.name.rfind("ProfilerStep#", 0) == 0) counts.steps.insert(file + e.name);
  const bool cpu = is_comm_event(e, true);
  if (!cpu && !is_comm_event(e, false)) return;
  (cpu ? counts.cpu_events : counts.kernel_events) += 1;
  try {
    const auto& name_arg = e.args["Collective name"];
    const std::string torch_name = name_arg.is_string() ? name_arg.get<std::string>() : "";
    const auto known = kTorchCollectives.find(torch_name);
    if (known == kTorchCollectives.end()) {
      ++(cpu ? counts.skipped_cpu : counts.skipped_kernels)[torch_name];
      return;
    }
    const auto dtype_arg = e.args.find("dtype");
    const std::string torch_dtype = dtype_arg != e.args.end() && dtype_arg->is_string() ? dtype_arg->get<std::string>() : "";
    const auto dtype = kTorchDtypes.find(torch_dtype);
    if (dtype == kTorchDtypes.end()) throw UsageError("unknown dtype '" + torch_dtype + "' in a communication event", {}, {file});
    const auto elements = integer_arg(e.args, known->second.size_from_output ? "Out msg nelems" : "In msg nelems", file);
    const auto group_size = integer_arg(e.args, "Group size", file);
    if (elements < 0 || group_size < 1 || group_size > (1 << 24)) {
      throw UsageError("a communication event with " + std::to_string(elements) + " elements in a group of " +
                           std::to_string(group_size),
                       "pass the trace torch.profiler wrote, unmodified", {file});
    }
    const Bytes bytes = static_cast<Bytes>(elements) * data_type(dtype->second).bytes;
    (cpu ? counts.cpu : counts.kernels)
        .add(collective(known->second.collective), bytes, &data_type(dtype->second), std::nullopt,
             static_cast<int>(group_size), file);
  } catch (const UsageError& error) {
    if (cpu) throw;
    if (!counts.kernel_error) counts.kernel_error = error;
  }
}

// SAX over {"traceEvents": [ {event}, ... ], ...}: depth 1 is the root object, 2 the
// array, 3 an event, 4 its args; anything deeper or elsewhere is skipped unread.
class TraceReader : public nlohmann::json_sax<json> {
 public:
  TraceReader(const std::string& file, TraceCounts& counts) : file_(file), counts_(counts) {}
  bool saw_events() const { return saw_events_; }

  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
  bool string(string_t& v) override { return scalar(v); }
  bool binary(binary_t&) override { return scalar(nullptr); }

  bool start_object(std::size_t) override {
    if (depth_ == 0) root_is_object_ = true;
    if (in_events() && depth_ == 2) event_ = TraceEvent{};
    if (in_events() && depth_ == 3 && key_ == "args") event_.has_args = in_args_ = true;
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (in_events() && depth_ == 3) in_args_ = false;
    if (in_events() && depth_ == 2) count_event(event_, file_, counts_);
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && root_is_object_ && key_ == "traceEvents") events_ = saw_events_ = true;
    ++depth_;
    return true;
  }
  bool end_array() override {
    if (--depth_ == 1) events_ = false;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ <= 4) key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw UsageError(std::string("not a complete JSON trace (truncated?): ") + e.what(),
                     "pass the .json or .json.gz that torch.profiler's export_chrome_trace wrote", {file_});
  }

 private:
  bool in_events() const { return events_; }
  template <typename T>
  bool scalar(T&& v) {
    if (!in_events()) return true;
    if (depth_ == 3 && (key_ == "name" || key_ == "cat")) {
      if constexpr (std::is_same_v<std::decay_t<T>, std::string>) (key_ == "name" ? event_.name : event_.cat) = v;
    } else if (depth_ == 4 && in_args_ && kArgKeys.count(key_) != 0) {
      event_.args[key_] = json(std::forward<T>(v));
    }
    return true;
  }

  const std::string& file_;
  TraceCounts& counts_;
  int depth_ = 0;
  bool root_is_object_ = false, events_ = false, saw_events_ = false, in_args_ = false;
  std::string key_;
  TraceEvent event_;
};

void read_trace(const std::string& file, TraceCounts& counts) {
  TextInputBuffer input(file, kJobLogInput);
  std::istream in(&input);
  TraceReader reader(file, counts);
  json::sax_parse(in, &reader);
  if (!reader.saw_events()) {
    throw UsageError("JSON without a traceEvents array: not a chrome trace", "pass a torch.profiler trace export", {file});
  }
}

}  // namespace

CommProfile import_torch_trace(const std::string& pattern, int iterations) {
  const auto files = expand_pattern(pattern, "torch.profiler traces");
  ImportCounter counter;
  std::map<std::string, long> skipped;
  std::set<std::string> steps;
  long kernels_ignored = 0;
  for (const auto& file : files) {
    TraceCounts counts;
    read_trace(file, counts);
    const bool has_cpu = counts.cpu_events > 0;
    if (!has_cpu && counts.kernel_error) throw *counts.kernel_error;
    counter.merge(has_cpu ? counts.cpu : counts.kernels);
    for (const auto& [name, n] : has_cpu ? counts.skipped_cpu : counts.skipped_kernels) skipped[name] += n;
    if (has_cpu) kernels_ignored += counts.kernel_events;
    steps.insert(counts.steps.begin(), counts.steps.end());
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
