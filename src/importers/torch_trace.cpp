// torch.profiler (Kineto) chrome traces. A collective appears as a record_param_comms
// CPU op and again as an NCCL kernel event with the same args ("Collective name",
// "In msg nelems", "Out msg nelems", "dtype", "Group size"): only the CPU ops are
// counted, the kernels only when a trace has no such CPU op. Traces from before that
// metadata (PyTorch up to 2.0) carry only ProcessGroupNCCL's "nccl:all_reduce"-style
// annotations with the call's tensors ("Input Dims", "Input type", when shapes were
// recorded): they are read when nothing newer is there, with the world size of the
// trace's distributedInfo as every call's group.
#include <nlohmann/json.hpp>

#include <istream>
#include <map>
#include <optional>
#include <type_traits>
#include <set>
#include <vector>

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

// The C++ element types older traces print in "Input type" (a bool tensor goes to NCCL as
// uint8).
const std::map<std::string, std::string> kTorchInputTypes = {
    {"float", "float32"},          {"c10::BFloat16", "bfloat16"},     {"c10::Half", "float16"},
    {"double", "float64"},         {"int", "int32"},                  {"long int", "int64"},
    {"long", "int64"},             {"signed char", "int8"},           {"unsigned char", "uint8"},
    {"bool", "uint8"},             {"c10::Float8_e4m3fn", "fp8_e4m3"}, {"c10::Float8_e5m2", "fp8_e5m2"},
};

// ProcessGroupNCCL's annotation names (the word after "nccl:") -> (collective, is the
// input one rank's share of the buffer?). A Recv is the other end of a counted Send.
struct AnnotatedCollective {
  const char* collective;  // nullptr: not one ncclsweep measures
  bool input_is_share;
};
const std::map<std::string, AnnotatedCollective> kAnnotatedCollectives = {
    {"all_reduce", {"all_reduce", false}},          {"all_reduce_coalesced", {"all_reduce", false}},
    {"allreduce_coalesced", {"all_reduce", false}}, {"broadcast", {"broadcast", false}},
    {"_broadcast_oop", {"broadcast", false}},       {"reduce", {"reduce", false}},
    {"_reduce_oop", {"reduce", false}},             {"all_gather", {"all_gather", true}},
    {"_all_gather_base", {"all_gather", true}},     {"all_gather_into_tensor_coalesced", {"all_gather", true}},
    {"allgather_into_tensor_coalesced", {"all_gather", true}}, {"all_gather_coalesced", {"all_gather", true}},
    {"reduce_scatter", {"reduce_scatter", false}},  {"_reduce_scatter_base", {"reduce_scatter", false}},
    {"reduce_scatter_tensor_coalesced", {"reduce_scatter", false}},
    {"all_to_all", {"alltoall", false}},            {"alltoall_base", {"alltoall", false}},
    {"alltoall", {"alltoall", false}},              {"send", {"sendrecv", false}},
    {"recv", {nullptr, false}},                     {"gather", {nullptr, false}},
    {"scatter", {nullptr, false}},                  {"barrier", {nullptr, false}},
};

// One event of traceEvents, with only the fields the import reads: the trace is
// streamed (SAX), so memory stays one event, whatever the trace's size.
struct TraceEvent {
  std::string name, cat;
  bool has_args = false;
  json args = json::object();  // only kArgKeys
};
const std::set<std::string> kArgKeys = {"Collective name", "In msg nelems", "Out msg nelems", "dtype", "Group size",
                                        "Input Dims", "Input type"};

// An older trace's "nccl:<name>" annotation (PyTorch before the collective metadata).
bool is_annotation(const TraceEvent& e) {
  return e.name.rfind("nccl:", 0) == 0 && (e.cat == "cpu_op" || e.cat == "user_annotation");
}

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
  // The older kind: annotations kept whole, read once the header's world size is known.
  std::vector<TraceEvent> annotations;
  long annotations_without_shapes = 0;
  std::map<std::string, long> other_backends;  // "gloo:all_reduce" and the like
  // From the trace's header.
  std::optional<bool> record_shapes;
  std::optional<std::int64_t> world_size;
};

void count_event(const TraceEvent& e, const std::string& file, TraceCounts& counts) {
  if (e.name.rfind("ProfilerStep#", 0) == 0) counts.steps.insert(file + e.name);
  if (is_annotation(e)) {
    if (e.args.contains("Input Dims") && e.args.contains("Input type")) {
      counts.annotations.push_back(e);
    } else {
      ++counts.annotations_without_shapes;
    }
    return;
  }
  if (const auto colon = e.name.find(':'); colon != std::string::npos && (e.cat == "cpu_op" || e.cat == "user_annotation")) {
    const std::string backend = e.name.substr(0, colon);
    if (backend == "gloo" || backend == "mpi" || backend == "ucc") ++counts.other_backends[e.name];
  }
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
    if (depth_ == 1 && root_is_object_ && key_ == "distributedInfo") in_distributed_info_ = true;
    if (in_events() && depth_ == 2) event_ = TraceEvent{};
    if (in_events() && depth_ == 3 && key_ == "args") event_.has_args = in_args_ = true;
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1) in_distributed_info_ = false;
    if (in_events() && depth_ == 3) in_args_ = false;
    if (in_events() && depth_ == 2) count_event(event_, file_, counts_);
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && root_is_object_ && key_ == "traceEvents") events_ = saw_events_ = true;
    // An older annotation's tensors: [[dims of tensor 1], [dims of tensor 2]] and their types.
    if (!capture_.empty() || (in_events() && depth_ == 4 && in_args_ && (key_ == "Input Dims" || key_ == "Input type"))) {
      if (capture_.empty()) capture_key_ = key_;
      capture_.push_back(json::array());
    }
    ++depth_;
    return true;
  }
  bool end_array() override {
    if (--depth_ == 1) events_ = false;
    if (!capture_.empty()) {
      json done = std::move(capture_.back());
      capture_.pop_back();
      if (capture_.empty()) {
        event_.args[capture_key_] = std::move(done);
        captured_ = 0;
      } else {
        capture_.back().push_back(std::move(done));
      }
    }
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
    if (!capture_.empty()) {
      // A call's tensors are a handful; a list past this is not one, and is not kept whole.
      if (++captured_ <= kMaxCapturedValues) capture_.back().push_back(json(std::forward<T>(v)));
      return true;
    }
    if (!in_events()) {
      header_scalar(json(std::forward<T>(v)));
      return true;
    }
    if (depth_ == 3 && (key_ == "name" || key_ == "cat")) {
      if constexpr (std::is_same_v<std::decay_t<T>, std::string>) (key_ == "name" ? event_.name : event_.cat) = v;
    } else if (depth_ == 4 && in_args_ && kArgKeys.count(key_) != 0) {
      event_.args[key_] = json(std::forward<T>(v));
    }
    return true;
  }
  // The trace's header: "record_shapes": 1 and "distributedInfo": {"world_size": N}.
  void header_scalar(const json& v) {
    if (depth_ == 1 && root_is_object_ && key_ == "record_shapes" && (v.is_number() || v.is_boolean())) {
      counts_.record_shapes = v.is_boolean() ? v.get<bool>() : v.get<double>() != 0;
    } else if (depth_ == 2 && in_distributed_info_ && key_ == "world_size" && v.is_number_integer()) {
      counts_.world_size = v.get<std::int64_t>();
    }
  }

  static constexpr long kMaxCapturedValues = 1 << 16;
  const std::string& file_;
  TraceCounts& counts_;
  int depth_ = 0;
  bool root_is_object_ = false, events_ = false, saw_events_ = false, in_args_ = false, in_distributed_info_ = false;
  std::string key_, capture_key_;
  std::vector<json> capture_;
  long captured_ = 0;
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

// The older kind's calls: every tensor of an annotation is one call of its collective,
// in the world's group (the annotation does not say which process group it used).
void count_annotations(const TraceCounts& counts, const std::string& file, ImportCounter& out,
                       std::map<std::string, long>& skipped) {
  if (!counts.world_size || *counts.world_size < 1 || *counts.world_size > (1 << 24)) {
    throw UsageError("the trace's collectives are the older kind (nccl:* annotations), which carry no group size, and its "
                         "header has no distributedInfo world_size to take it from",
                     "profile with torch.distributed initialised before the profiler starts (it then writes "
                     "distributedInfo), or with a PyTorch whose record_param_comms events carry the collective's metadata",
                     {file});
  }
  const int group = static_cast<int>(*counts.world_size);
  for (const TraceEvent& e : counts.annotations) {
    const std::string word = e.name.substr(5, e.name.find(' ') == std::string::npos ? std::string::npos : e.name.find(' ') - 5);
    const auto known = kAnnotatedCollectives.find(word);
    if (known == kAnnotatedCollectives.end() || known->second.collective == nullptr) {
      ++skipped[e.name.substr(0, 5 + word.size())];
      continue;
    }
    const json& dims = e.args["Input Dims"];
    const json& types = e.args["Input type"];
    if (!dims.is_array() || !types.is_array() || dims.size() != types.size()) {
      throw UsageError("an " + e.name + " annotation whose 'Input Dims' and 'Input type' are not lists of one entry per input",
                       "pass the trace torch.profiler wrote, unmodified", {file});
    }
    long tensors = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const auto type = kTorchInputTypes.find(types[i].is_string() ? types[i].get<std::string>() : "");
      if (type == kTorchInputTypes.end() || !dims[i].is_array()) continue;  // not a tensor input (a scalar, a name)
      std::uint64_t elements = 1;
      for (const json& d : dims[i]) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || (d.get<std::int64_t>() > 0 && elements > (1ULL << 50) / d.get<std::uint64_t>())) {
          throw UsageError("an " + e.name + " annotation with input dimensions " + dims[i].dump() + ", not a tensor's shape",
                           "pass the trace torch.profiler wrote, unmodified", {file});
        }
        elements *= d.get<std::uint64_t>();
      }
      const DataType& dtype = data_type(type->second);
      const Bytes bytes = static_cast<Bytes>(elements * dtype.bytes * (known->second.input_is_share ? group : 1));
      out.add(collective(known->second.collective), bytes, &dtype, std::nullopt, group, file);
      ++tensors;
    }
    if (tensors == 0) ++skipped[e.name.substr(0, 5 + word.size()) + " (no tensor input with a known element type)"];
  }
}

// Why a trace set yields no call, in words that fit what its files hold.
[[noreturn]] void refuse_empty(const std::vector<std::string>& files, const std::string& pattern, long bare_annotations,
                               bool shapes_recorded, const std::map<std::string, long>& other_backends) {
  const std::string in = std::to_string(files.size()) + " trace file(s) matching '" + pattern + "'";
  if (bare_annotations > 0 && shapes_recorded) {
    throw UsageError("the " + std::to_string(bare_annotations) + " nccl:* annotations in " + in +
                         " carry no 'Input Dims' or 'Input type' although the trace recorded shapes (record_shapes: 1): "
                         "this PyTorch records no tensors for them, so their sizes cannot be known",
                     "profile with a PyTorch whose record_param_comms events carry the collective's metadata, or give the "
                     "job's NCCL COLL logs (--from-nccl-log)",
                     {files.front()});
  }
  if (bare_annotations > 0) {
    throw UsageError("the " + std::to_string(bare_annotations) + " nccl:* annotations in " + in +
                         " carry no 'Input Dims' or 'Input type': the trace was profiled without shapes",
                     "profile the training steps with record_shapes=True", {files.front()});
  }
  if (!other_backends.empty()) {
    throw UsageError("the collectives in " + in + " ran on another backend (" + std::to_string(other_backends.begin()->second) +
                         " '" + other_backends.begin()->first + "' events), not NCCL",
                     "ncclsweep sizes NCCL's collectives: trace a job whose process group uses the nccl backend", {files.front()});
  }
  if (shapes_recorded) {
    throw UsageError("no communication events (record_param_comms, NCCL kernels with 'Collective name', or nccl:* "
                         "annotations) in " + in + ": the traced steps made no NCCL collective call",
                     "profile steps in which the job communicates (the profiler schedule's active steps), or give its "
                     "NCCL COLL logs (--from-nccl-log)",
                     {files.front()});
  }
  throw UsageError("no communication events (record_param_comms or NCCL kernels with 'Collective name') in " + in,
                   "profile the training steps themselves, with record_shapes=True", {files.front()});
}

}  // namespace

CommProfile import_torch_trace(const std::string& pattern, int iterations) {
  const auto files = expand_pattern(pattern, "torch.profiler traces");
  ImportCounter counter;
  std::map<std::string, long> skipped, other_backends;
  std::set<std::string> steps;
  long kernels_ignored = 0, bare_annotations = 0;
  bool shapes_recorded = false;
  std::optional<std::int64_t> older_kind_group;
  for (const auto& file : files) {
    TraceCounts counts;
    read_trace(file, counts);
    const bool has_cpu = counts.cpu_events > 0;
    if (has_cpu || counts.kernel_events > 0) {
      if (!has_cpu && counts.kernel_error) throw *counts.kernel_error;
      counter.merge(has_cpu ? counts.cpu : counts.kernels);
      for (const auto& [name, n] : has_cpu ? counts.skipped_cpu : counts.skipped_kernels) skipped[name] += n;
      if (has_cpu) kernels_ignored += counts.kernel_events;
    } else if (!counts.annotations.empty()) {
      ImportCounter older;
      count_annotations(counts, file, older, skipped);
      counter.merge(older);
      older_kind_group = counts.world_size;
    }
    bare_annotations += counts.annotations_without_shapes;
    shapes_recorded = shapes_recorded || counts.record_shapes.value_or(false);
    for (const auto& [name, n] : counts.other_backends) other_backends[name] += n;
    steps.insert(counts.steps.begin(), counts.steps.end());
  }
  if (counter.empty()) refuse_empty(files, pattern, bare_annotations, shapes_recorded, other_backends);
  // Every file is one rank's trace; its ProfilerStep#N events are its iterations.
  const int traced_steps = static_cast<int>(steps.size() / files.size());
  const int divide_by = iterations > 0 ? iterations : traced_steps;
  auto profile = counter.profile(pattern + " (" + std::to_string(files.size()) + " traces)", "torch trace", divide_by);
  if (older_kind_group) {
    profile.notes.push_back("the collective metadata is the older kind (nccl:* annotations with 'Input Dims' and 'Input "
                            "type', before PyTorch recorded record_param_comms metadata): sizes come from the call's "
                            "tensors, and every call's group is the world size " + std::to_string(*older_kind_group) +
                            " of distributedInfo, as these annotations do not say which process group a call used");
  }
  if (iterations == 0 && traced_steps > 0) profile.notes.push_back("iterations counted from ProfilerStep#N events");
  if (kernels_ignored > 0) {
    profile.notes.push_back(std::to_string(kernels_ignored) + " NCCL kernel events not counted again (their record_param_comms were)");
  }
  for (const auto& [name, n] : skipped) profile.notes.push_back("skipped " + std::to_string(n) + " '" + name + "' events");
  profile.notes.push_back("torch traces do not record the reduction operator: op left empty");
  return profile;
}

}  // namespace ncclsweep
