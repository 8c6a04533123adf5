// Sub-communicator groups, workload-derived calls and the weighting by time per
// iteration: the pure parts, without MPI.
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>
#include <map>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "spec/comm_split.hpp"
#include "plan/measurement_plan.hpp"
#include "report/sweep_report.hpp"
#include "results/record_json.hpp"
#include "measure/group_times.hpp"
#include "processes/worker_protocol.hpp"
#include "spec/sweep.hpp"
#include "plan/sweep_sizes.hpp"
#include "results/iteration_times.hpp"
#include "workload/sizes_output.hpp"

using namespace ncclsweep;

namespace {


std::vector<int> colours(const CommSplit& g, int ranks) {
  std::vector<int> out;
  for (int r = 0; r < ranks; ++r) out.push_back(split_colour(g, r));
  return out;
}

MeasurementRecord record(const std::string& point, const std::string& collective, Bytes bytes, int ranks, double us,
                         const std::string& placement = "out_of_place") {
  MeasurementRecord r;
  r.point = point;
  r.collective = &ncclsweep::collective(collective);
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.size_bytes = r.requested_bytes = bytes;
  r.ranks = ranks;
  r.time_us = {us, us, us};
  r.placement = parse_placement(placement);
  return r;
}

}  // namespace

TEST_CASE("strided groups and adjacent blocks get the colours of their members") {
  CHECK(colours(CommSplit{CommunicatorKind::stride, 2, 2}, 4) == std::vector<int>{0, 1, 0, 1});
  CHECK(colours(CommSplit{CommunicatorKind::size, 2, 1}, 4) == std::vector<int>{0, 0, 1, 1});
  // dp groups of 2 strided by tp=2 on 8 ranks (tp2 dp2 pp2): {0,2} {1,3} {4,6} {5,7}.
  CHECK(colours(CommSplit{CommunicatorKind::dp, 2, 2}, 8) == std::vector<int>{0, 1, 0, 1, 2, 3, 2, 3});
  CHECK(colours(CommSplit{}, 4) == std::vector<int>{0, 0, 0, 0});
}

TEST_CASE("plain group requests resolve against the rank count and placement") {
  const CommSplit stride = resolve_plain_split(parse_comm_split_request("stride:2"), 8, 8);
  CHECK(stride.size == 4);
  CHECK(stride.stride == 2);
  const CommSplit blocks = resolve_plain_split(parse_comm_split_request("size=4"), 8, 8);
  CHECK(blocks.size == 4);
  CHECK(blocks.stride == 1);
  const CommSplit intra = resolve_plain_split(parse_comm_split_request("intra-node"), 16, 8);
  CHECK(intra.size == 8);
  CHECK(intra.stride == 1);
  const CommSplit inter = resolve_plain_split(parse_comm_split_request("inter-node"), 16, 8);
  CHECK(inter.size == 2);
  CHECK(inter.stride == 8);
  CHECK(resolve_plain_split(parse_comm_split_request("intra-node"), 8, 8).is_world());  // one node: the world
  CHECK_THAT(usage_error_text([] { resolve_plain_split(parse_comm_split_request("size:3"), 8, 8); }),
             ContainsSubstring("8 ranks do not split into blocks of 3"));
  CHECK_THAT(usage_error_text([] { resolve_plain_split(parse_comm_split_request("inter-node"), 8, 0); }),
             ContainsSubstring("equal blocks per node"));
  // A round-robin placement is refused the same way; the fix says how to place by slot.
  CHECK_THAT(usage_error_text([] { resolve_plain_split(parse_comm_split_request("intra-node"), 8, 0); }),
             ContainsSubstring("not --map-by node"));
  CHECK_THAT(usage_error_text([] { parse_comm_split_request("stride:two"); }), ContainsSubstring("positive integer"));
  CHECK_THAT(usage_error_text([] { parse_comm_split_request("rows"); }), ContainsSubstring("intra-node, inter-node"));
}

TEST_CASE("a grid on groups of 2 sizes its calls for 2 ranks and names the sub-communicator") {
  RunSpec spec;
  spec.collectives = parse_collective_list("all_gather,broadcast");
  spec.sizes = {1 << 20};
  spec.dtypes = parse_dtype_list("float32");
  spec.ops = parse_op_list("sum");
  spec.split = CommSplit{CommunicatorKind::stride, 2, 2};
  const MeasurementPlan plan = plan_measurements(spec, 4);
  REQUIRE(plan.comms.size() == 1);
  REQUIRE(plan.calls.size() == 2);
  CHECK(plan.calls[0].call.comm == 1);
  CHECK(plan.calls[0].call.count == (1u << 20) / (2 * 4));  // all_gather: per rank of a 2-rank group
  CHECK(comm_colors(plan, 3) == std::vector<int>{1});
  spec.root = 2;  // a rank of the world, not of a group of 2
  CHECK_THAT(usage_error_text([&] { plan_measurements(spec, 4); }), ContainsSubstring("not a rank of a 2-rank"));
}

TEST_CASE("per-group times reduce within each group; the busbw factor is the group's") {
  RunSpec spec;
  spec.calls = {SizedCall{&collective("all_gather"), &data_type("float32"), ReduceOp::sum, 8000, CommSplit{CommunicatorKind::stride, 2, 2}}};
  const MeasurementPlan plan = plan_measurements(spec, 4);
  MeasurementRecord r;
  r.ranks = 2;
  add_sub_communicator_times(r, plan.calls[0], 4, {1e-6, 2e-6, 3e-6, 4e-6});
  REQUIRE(r.per_communicator.size() == 2);
  CHECK(r.communicators == 2);
  CHECK(r.communicator == CommunicatorKind::stride);
  CHECK(r.per_communicator[0].time_us.max == Approx(3));  // ranks 0 and 2
  CHECK(r.per_communicator[0].time_us.min == Approx(1));
  CHECK(r.per_communicator[1].time_us.avg == Approx(3));  // ranks 1 and 3
  // 8000 B in 4 us = 2 GB/s algbw; all_gather on 2 ranks: x 1/2.
  CHECK(r.per_communicator[1].busbw_gbps == Approx(1.0));
  // A rank other than 0 has no rank's times but its own: the shape, not the per-group times.
  MeasurementRecord elsewhere;
  elsewhere.ranks = 2;
  add_sub_communicator_times(elsewhere, plan.calls[0], 4, {});
  CHECK(elsewhere.communicator == CommunicatorKind::stride);
  CHECK(elsewhere.communicators == 2);
  CHECK(elsewhere.per_communicator.empty());
}

TEST_CASE("sweep files take sizes from a workload and groups, with positions for errors") {
  const Sweep sweep = load_sweep_text("sizes: {workload: w.yaml}\ngroups: {stride: 2}\n", "s.yaml");
  REQUIRE(sweep.sizes_from);
  CHECK(sweep.sizes_from->kind == SizesSourceKind::workload);
  CHECK(sweep.sizes_from->path == "w.yaml");
  CHECK(sweep.sizes_from->where.line == 1);
  REQUIRE(sweep.communicators);
  CHECK(sweep.communicators->kind == CommunicatorKind::stride);
  CHECK(sweep.communicators->value == 2);
  CHECK(load_sweep_text("groups: {workload: dp}\n", "s.yaml").communicators->kind == CommunicatorKind::dp);
  CHECK_THAT(usage_error_text([] { load_sweep_text("sizes: {workload: a, from_nccl_log: b}\n", "s.yaml"); }),
             ContainsSubstring("two sources"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("name: x\nsizes: {wrkload: a}\n", "s.yaml"); }),
             ContainsSubstring("s.yaml:2"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("groups: {workload: rows}\n", "s.yaml"); }),
             ContainsSubstring("s.yaml:1:20: unknown groups 'rows'"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("groups: {workload: intra-node}\n", "s.yaml"); }),
             ContainsSubstring("not a group kind"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("groups: stride:0\n", "s.yaml"); }), ContainsSubstring("s.yaml:1"));
}

TEST_CASE("workload calls run on their own groups when the layout fits, else on the world") {
  SizesSource source{SizesSourceKind::workload, kTestData.string() + "/workloads/tiny-tp2-dp2.yaml", 0, {"s.yaml", 3, 1}};
  const SizesInput input = load_sizes_source(source, "s.yaml", kTestData.string() + "/models");
  const auto dtypes = parse_dtype_list("float32");
  const WorkloadCalls fit = plan_workload_calls(input, std::nullopt, dtypes, 4, 4);
  bool saw_dp = false, saw_tp = false;
  for (const SizedCall& c : fit.calls) {
    if (c.split.kind == CommunicatorKind::dp_cp) {  // Megatron's data-parallel group
      saw_dp = true;
      CHECK(c.split.size == 2);
      CHECK(c.split.stride == 2);  // strided by tp
    }
    if (c.split.kind == CommunicatorKind::tp) {
      saw_tp = true;
      CHECK(c.split.stride == 1);  // adjacent
    }
  }
  CHECK(saw_dp);
  CHECK(saw_tp);
  CHECK(fit.notes.empty());
  for (const WorkloadCall& w : fit.weights.calls) CHECK(w.communicator_ranks == 2);

  const WorkloadCalls world = plan_workload_calls(input, std::nullopt, dtypes, 8, 8);
  for (const SizedCall& c : world.calls) CHECK(c.split.is_world());
  REQUIRE(world.notes.size() == 1);
  CHECK_THAT(world.notes[0], ContainsSubstring("layout has 4 ranks, this run 8"));

  const WorkloadCalls dp_only = plan_workload_calls(input, parse_comm_split_request("dp"), dtypes, 4, 4);
  for (const SizedCall& c : dp_only.calls) CHECK(c.split.kind == CommunicatorKind::dp);
  CHECK_THAT(usage_error_text([&] { plan_workload_calls(input, parse_comm_split_request("tp"), dtypes, 8, 8); }),
             ContainsSubstring("needs a workload layout of 8 ranks"));
}

// What `ncclsweep sizes --format yaml` writes for a workload, as a sweep file's sizes:.
Sweep sweep_of_sizes_yaml(const CommProfile& profile) {
  return load_sweep_text("engine: mpi\n" + format_sizes(profile, SizesFormat::yaml), "listed.yaml");
}

TEST_CASE("sizes --format yaml lists each collective at its own sizes, and a sweep file measures exactly those calls") {
  SizesSource source{SizesSourceKind::workload, kTestData.string() + "/workloads/tiny-tp2-dp2.yaml", 0, {"s.yaml", 3, 1}};
  const SizesInput input = load_sizes_source(source, "s.yaml", kTestData.string() + "/models");
  const Sweep listed = sweep_of_sizes_yaml(input.profile);
  REQUIRE(listed.sizes_from);
  CHECK(listed.sizes_from->kind == SizesSourceKind::calls);
  CHECK(listed.sizes_from->ranks == 4);
  const SizesInput reread = load_sizes_source(*listed.sizes_from, "listed.yaml", kTestData.string() + "/models");
  const auto dtypes = parse_dtype_list("float32");
  for (const int ranks : {4, 8}) {  // groups apply on the layout's 4 ranks; on 8 the world, with the note
    INFO(ranks << " ranks");
    const WorkloadCalls direct = plan_workload_calls(input, std::nullopt, dtypes, ranks, ranks);
    const WorkloadCalls from_yaml = plan_workload_calls(reread, std::nullopt, dtypes, ranks, ranks);
    REQUIRE(from_yaml.calls.size() == direct.calls.size());
    for (std::size_t i = 0; i < direct.calls.size(); ++i) {
      CHECK(from_yaml.calls[i].kind == direct.calls[i].kind);
      CHECK(from_yaml.calls[i].bytes == direct.calls[i].bytes);
      CHECK(from_yaml.calls[i].dtype == direct.calls[i].dtype);
      CHECK(from_yaml.calls[i].op == direct.calls[i].op);
      CHECK(from_yaml.calls[i].split.kind == direct.calls[i].split.kind);
      CHECK(from_yaml.calls[i].split.size == direct.calls[i].split.size);
      CHECK(from_yaml.calls[i].split.stride == direct.calls[i].split.stride);
    }
    // The weights: the same calls per iteration for every collective and size.
    const auto per_call = [](const WorkloadCalls& w) {
      std::map<std::pair<std::string, Bytes>, double> sum;
      for (const WorkloadCall& c : w.weights.calls) sum[{std::string(c.collective->name), c.bytes}] += c.calls;
      return sum;
    };
    CHECK(per_call(from_yaml) == per_call(direct));
    CHECK(from_yaml.notes == direct.notes);
  }
  // Not the cross product: no collective is listed at another's size.
  std::set<std::pair<const CollectiveKind*, Bytes>> sent, listed_pairs;
  for (const CommUse& u : input.profile.uses) sent.insert({u.collective, u.bytes});
  for (const ListedCall& c : listed.sizes_from->calls) listed_pairs.insert({c.collective, c.bytes});
  CHECK(listed_pairs == sent);

  // An import without iterations stays "over the whole input"; its groups are unknown.
  CommProfile trace;
  trace.source = "t.json";
  trace.per_iteration = false;
  trace.uses = {CommUse{&collective("all_gather"), 4096, &data_type("bfloat16"), std::nullopt, {ParallelKind::unknown, 2, 0}, 7,
                        "torch trace: 7 calls by 1 ranks"}};
  const Sweep whole = sweep_of_sizes_yaml(trace);
  REQUIRE(whole.sizes_from);
  CHECK_FALSE(whole.sizes_from->per_iteration);
  const SizesInput reread_trace = load_sizes_source(*whole.sizes_from, "listed.yaml", kTestData.string() + "/models");
  CHECK_FALSE(reread_trace.profile.per_iteration);
  REQUIRE(reread_trace.profile.uses.size() == 1);
  CHECK(reread_trace.profile.uses[0].calls == 7);
  CHECK(reread_trace.profile.uses[0].origin == "torch trace: 7 calls by 1 ranks");
}

TEST_CASE("a listed call that is wrong names its line and the fix") {
  const auto error = [](const std::string& calls) {
    return usage_error_text([&] { load_sweep_text("sizes:\n  calls:\n" + calls, "s.yaml"); });
  };
  CHECK_THAT(error("    - {collective: all_gathr, bytes: 1M}\n"), ContainsSubstring("s.yaml:3:") && ContainsSubstring("all_gather"));
  CHECK_THAT(error("    - {collective: all_gather, bytes: 1M}\n    - {collective: all_gather, byts: 1M}\n"),
             ContainsSubstring("s.yaml:4:") && ContainsSubstring("unknown call key 'byts'") && ContainsSubstring("bytes"));
  CHECK_THAT(error("    - {collective: all_gather}\n"), ContainsSubstring("no bytes"));
  CHECK_THAT(error("    - {collective: all_gather, bytes: 1M, calls: .nan}\n"), ContainsSubstring("positive number"));
  CHECK_THAT(error("    - {collective: all_gather, bytes: 1M, calls: 0}\n"), ContainsSubstring("positive number"));
  CHECK_THAT(error("    - {collective: all_gather, bytes: 1M, group: dp}\n"), ContainsSubstring("group_size and group_stride"));
  CHECK_THAT(error("    - {collective: all_gather, bytes: 1M, group: rows, group_size: 2, group_stride: 1}\n"),
             ContainsSubstring("unknown group 'rows'"));
  CHECK_THAT(error("    - {collective: all_reduce, bytes: 1M, op: mean}\n"), ContainsSubstring("s.yaml:3:"));
  CHECK_THAT(error("    []\n"), ContainsSubstring("non-empty list"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("sizes: {workload: w.yaml, ranks: 4}\n", "s.yaml"); }),
             ContainsSubstring("ranks and per_iteration go with sizes: {calls"));
}

TEST_CASE("a missing workload names the sweep file's line and the workload path") {
  SizesSource source{SizesSourceKind::workload, "no/such.yaml", 0, {"s.yaml", 3, 8}};
  const std::string text = usage_error_text([&] { load_sizes_source(source, "s.yaml", kTestData.string() + "/models"); });
  CHECK_THAT(text, ContainsSubstring("s.yaml:3:8"));
  CHECK_THAT(text, ContainsSubstring("no/such.yaml"));
}

TEST_CASE("time per iteration weighs each point's measured times by calls, interpolating between sizes") {
  RunDocument run;
  run.points = {PointOutcome{}, PointOutcome{}};
  run.points[0].label = "A";
  run.points[1].label = "B";
  run.workload = WorkloadWeights{"w.yaml", "per rank per iteration",
                                 {{&collective("all_gather"), 3000, &data_type("float32"), CommunicatorKind::dp, 2, 2, "params"},
                                  {&collective("reduce_scatter"), 1000, &data_type("float32"), CommunicatorKind::dp, 2, 1, "grads"}}};
  // A: all_gather measured at 1000 B (1 us) and 9000 B (4 us): 3000 B is half-way in log
  // size, so sqrt(1 x 4) = 2 us per call, x 2 calls; reduce_scatter 5 us measured. 9 us.
  run.records = {record("A", "all_gather", 1000, 2, 1), record("A", "all_gather", 9000, 2, 4),
                 record("A", "reduce_scatter", 1000, 2, 5), record("A", "reduce_scatter", 1000, 2, 50, "in_place"),
                 record("A", "all_gather", 3000, 4, 100),  // another group size: not this call's
                 // B: reduce_scatter measured, all_gather only above 3000 B: no extrapolation.
                 record("B", "reduce_scatter", 1000, 2, 2), record("B", "all_gather", 9000, 2, 1)};
  const auto times = weigh_points(run);
  REQUIRE(times.size() == 2);
  CHECK(times[0].point == "A");
  CHECK(times[0].ms == Approx(0.009));
  CHECK(times[0].interpolated == 1);
  CHECK(times[0].measured == 1);
  CHECK(times[0].missing == 0);
  CHECK(times[1].ms == Approx(0.002));
  CHECK(times[1].missing == 1);

  run.iteration_times = times;
  const std::string text = iteration_summary_text(run, "A");
  // B is a lower bound (a call unmeasured): it ranks after the complete A.
  CHECK(text.find("P0 A") < text.find("P1 B"));
  CHECK_THAT(text, ContainsSubstring("1 interpolated"));
  CHECK_THAT(text, ContainsSubstring("lower bound"));
  CHECK_THAT(text, ContainsSubstring("-0.007 ms (-77.8%)"));
  // The calls a rank makes (2 + 1), not the rows; the span the weights cover.
  CHECK_THAT(text, ContainsSubstring("per training iteration") && ContainsSubstring("(3 calls of 2 kinds;"));
  CHECK_THAT(text, ContainsSubstring("ms/iter"));

  // A trace that cannot be cut into iterations: every heading and unit says so.
  run.workload->per_iteration = false;
  run.workload->basis = "per rank over the whole input";
  const std::string whole = iteration_summary_text(run, "A");
  CHECK_THAT(whole, ContainsSubstring("collective time over the whole input"));
  CHECK_THAT(whole, ContainsSubstring("ms/input"));
  CHECK_THAT(whole, !ContainsSubstring("per training iteration") && !ContainsSubstring("ms/iter"));
  const std::string md = iteration_summary_markdown(run, "A");
  CHECK_THAT(md, ContainsSubstring("Collective time over the whole input") && ContainsSubstring("| ms/input |"));
  std::ostringstream table;
  print_sweep_report(build_sweep_report(run), ReportFormat::table, table);
  CHECK_THAT(table.str(), ContainsSubstring("collective time over the whole input (w.yaml)"));
  // run.json keeps the flag; one written before it reads as per iteration.
  const nlohmann::json saved = *run.workload;
  CHECK(saved.at("per_iteration") == false);
  nlohmann::json old_file = saved;
  old_file.erase("per_iteration");
  CHECK(old_file.get<WorkloadWeights>().per_iteration);
}

TEST_CASE("size bands name the best point per range of sizes, and noise as noise") {
  const std::vector<Bytes> sizes = {1024, 1 << 20, 64u << 20, 1u << 30};
  const std::vector<std::vector<std::optional<double>>> busbw = {
      {10.0, 10.2}, {10.0, 9.9}, {10.0, 14.5}, {10.0, 14.5}};
  const auto bands = size_bands(sizes, busbw, {"NCCL_MAX_NCHANNELS=4", "NCCL_MAX_NCHANNELS=32"}, 0, 0.05);
  REQUIRE(bands.size() == 2);
  CHECK_THAT(bands[0], ContainsSubstring("within noise up to 1 MiB"));
  CHECK(bands[1] == "NCCL_MAX_NCHANNELS=32 best from 64 MiB: +45%");
  const auto slower = size_bands({1024}, {{10.0, 5.0}}, {"a", "b"}, 0, 0.05);
  CHECK(slower == std::vector<std::string>{"baseline best at every size"});
}

TEST_CASE("group fields and workload weights survive run.json and the worker start message") {
  RunDocument run;
  run.workload = WorkloadWeights{"w.yaml", "basis", {{&collective("all_gather"), 1000, &data_type("bfloat16"), CommunicatorKind::dp, 2, 3, "o"}}};
  run.iteration_times = {PointIterationTime{"default", 1.5, 1, 0, 0}};
  run.baseline = "default";
  MeasurementRecord r = record("default", "all_gather", 1000, 2, 1);
  r.communicator = CommunicatorKind::dp;
  r.communicators = 2;
  r.per_communicator = {SubCommunicatorTime{0, {1, 1, 1}, 2}, SubCommunicatorTime{1, {1, 2, 3}, 1}};
  run.records = {r};
  const RunDocument back = nlohmann::json(run).get<RunDocument>();
  REQUIRE(back.workload);
  CHECK(back.workload->calls[0].calls == 3);
  CHECK(back.iteration_times[0].ms == 1.5);
  CHECK(back.baseline == "default");
  CHECK(back.records[0].communicator == CommunicatorKind::dp);
  CHECK(back.records[0].per_communicator[1].time_us.max == 3);

  RunSpec spec;
  spec.collectives = parse_collective_list("all_gather");
  spec.sizes = {1024};
  spec.dtypes = parse_dtype_list("float32");
  spec.ops = parse_op_list("sum");
  spec.split = CommSplit{CommunicatorKind::size, 2, 1};
  spec.calls = {SizedCall{&collective("reduce_scatter"), &data_type("bfloat16"), ReduceOp::sum, 4096, CommSplit{CommunicatorKind::dp, 2, 2}}};
  const RunSpec spec_back = nlohmann::json(spec).get<RunSpec>();
  CHECK(spec_back.split.kind == CommunicatorKind::size);
  CHECK(spec_back.split.size == 2);
  REQUIRE(spec_back.calls.size() == 1);
  CHECK(spec_back.calls[0].kind == &collective("reduce_scatter"));
  CHECK(spec_back.calls[0].split.stride == 2);
}

TEST_CASE("the colour of a workload group splits the ranks as the layout's own colour does") {
  Layout layout;
  layout.tp = 2;
  layout.cp = 2;
  layout.dp = 2;
  layout.pp = 2;
  for (const ParallelKind kind : {ParallelKind::tp, ParallelKind::cp, ParallelKind::dp, ParallelKind::pp, ParallelKind::dp_cp}) {
    const ParallelGroup spec = group_of(kind, layout);
    const CommSplit group{kCommunicatorKindNames.parse(name_of(kind)), spec.size, spec.stride};
    INFO(name_of(kind));
    for (int a = 0; a < layout.world(); ++a) {
      for (int b = 0; b < layout.world(); ++b) {
        CHECK((split_colour(group, a) == split_colour(group, b)) ==
              (color_of(spec, layout, a) == color_of(spec, layout, b)));
      }
    }
  }
}

TEST_CASE("records and workload calls write the split's names and still read the old ones") {
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.dtype = &data_type("float32");
  r.op = std::nullopt;
  r.placement = Placement::out_of_place;
  r.communicator = CommunicatorKind::dp;
  r.communicators = 2;
  r.per_communicator = {SubCommunicatorTime{0, {1, 2, 3}, 4}, SubCommunicatorTime{1, {5, 6, 7}, 8}};
  const nlohmann::json j = r;
  CHECK(j.at("communicator") == "dp");
  CHECK(j.at("communicators") == 2);
  CHECK(j.at("per_communicator")[1].at("colour") == 1);
  CHECK_FALSE(j.contains("comm_group"));

  nlohmann::json old = j;  // as written before the rename
  old.erase("communicator");
  old.erase("communicators");
  old.erase("per_communicator");
  old["comm_group"] = "dp";
  old["groups"] = 2;
  old["per_communicator"] = {{{"group", 0}, {"time_us", {{"min", 1}, {"avg", 2}, {"max", 3}}}, {"busbw_gbps", 4}},
                      {{"group", 1}, {"time_us", {{"min", 5}, {"avg", 6}, {"max", 7}}}, {"busbw_gbps", 8}}};
  const MeasurementRecord back = old.get<MeasurementRecord>();
  CHECK(back.communicator == CommunicatorKind::dp);
  CHECK(back.communicators == 2);
  REQUIRE(back.per_communicator.size() == 2);
  CHECK(back.per_communicator[1].colour == 1);
  CHECK(back.per_communicator[1].time_us.max == 7);

  const WorkloadCall call = nlohmann::json{{"collective", "all_gather"}, {"bytes", 64}, {"dtype", "bf16"}, {"group", "tp"},
                                           {"group_size", 4}, {"calls", 2.0}, {"origin", "o"}}
                                .get<WorkloadCall>();
  CHECK(call.communicator == CommunicatorKind::tp);
  CHECK(call.communicator_ranks == 4);
  CHECK(nlohmann::json(call).at("communicator_ranks") == 4);
}

TEST_CASE("every parallel group kind maps to its communicator kind and back; plain kinds map to none") {
  int mapped = 0;
  for (const auto& [kind, name] : kCommunicatorKindNames.entries()) {
    INFO(name);
    const ParallelKind parallel = parallel_kind_of(kind);
    CHECK((parallel != ParallelKind::unknown) == is_parallel(kind));
    if (parallel == ParallelKind::unknown) continue;
    ++mapped;
    CHECK(communicator_kind_of(parallel) == kind);
    CHECK(name_of(parallel) == name);  // one spelling in workloads and sweep files
  }
  CHECK(mapped == 7);
  CHECK_FALSE(communicator_kind_of(ParallelKind::unknown).has_value());
}
