#include <algorithm>
#include <string>

#include "catch_compat.hpp"
#include "spec/config_fields.hpp"
#include "spec/nccl_variables.hpp"
#include "core/nccl_version.hpp"
#include "core/suggest.hpp"
#include "plan/sweep_plan.hpp"
#include "spec/sweep.hpp"

using namespace ncclsweep;

TEST_CASE("a sweep file fills the measurement axes and keeps env and config axes in file order") {
  const Sweep s = load_sweep_text(
      "name: demo\n"
      "collectives: all_gather, reduce_scatter\n"
      "sizes: [1M, 4M:16M:x4, 1073741824]\n"
      "dtypes: [bfloat16]\n"
      "iters: 7\nwarmup: 0\n"
      "env:\n  NCCL_PROTO: [LL, Simple]\n  NCCL_MAX_NCHANNELS: [4, 32]\n"
      "config:\n  max_ctas: [8, 32]\n"
      "repeats: 3\norder: shuffled\nseed: 42\n",
      "demo.yaml");
  CHECK(s.measurements.name == "demo");
  REQUIRE(s.measurements.collectives.size() == 2);
  CHECK(s.measurements.collectives[1]->name == "reduce_scatter");
  CHECK(s.measurements.sizes == std::vector<Bytes>{1u << 20, 4u << 20, 16u << 20, 1u << 30});
  CHECK(s.measurements.dtypes.front()->name == "bfloat16");
  CHECK(s.measurements.iters == 7);
  CHECK(s.measurements.warmup == 0);
  REQUIRE(s.env.size() == 2);
  CHECK(s.env[0].name == "NCCL_PROTO");
  CHECK(s.env[1].values == std::vector<std::string>{"4", "32"});
  CHECK(s.env[1].where.str() == "demo.yaml:9:3");
  REQUIRE(s.config.size() == 1);
  CHECK(s.config[0].name == "max_ctas");
  CHECK(s.repeats == 3);
  CHECK(s.order == RepeatOrder::shuffled);
  CHECK(s.seed == 42);
}

TEST_CASE("keys left out take the run command's defaults") {
  const Sweep s = load_sweep_text("name: minimal\n", "m.yaml");
  CHECK(s.measurements.collectives.size() == 3);
  CHECK(s.measurements.sizes.size() == 6);  // 1M:1G:x4
  CHECK(s.measurements.iters == 0);  // absent: the noise-based stop
  CHECK(s.env.empty());
  CHECK(s.repeats == 1);
  CHECK(s.order == RepeatOrder::sequential);
  CHECK_FALSE(s.baseline.has_value());
}

TEST_CASE("allow_unknown_env passes a variable the table lacks") {
  const std::string text = "env:\n  NCCL_FUTURE_KNOB: [1, 2]\n";
  CHECK_THAT(usage_error_text([&] { load_sweep_text(text, "u.yaml"); }), ContainsSubstring("unknown NCCL variable NCCL_FUTURE_KNOB"));
  const Sweep s = load_sweep_text(text + "allow_unknown_env: true\n", "u.yaml");
  CHECK(s.env.front().name == "NCCL_FUTURE_KNOB");
}

TEST_CASE("a config field is checked against the NCCL version in the context") {
  const std::string text = "config:\n  n_channels_per_net_peer: [2, 4]\n";
  CHECK_NOTHROW(load_sweep_text(text, "c.yaml", SweepContext{22800}));
  CHECK_THAT(usage_error_text([&] { load_sweep_text(text, "c.yaml", SweepContext{22703}); }),
             ContainsSubstring("needs NCCL 2.28.0 or newer; this NCCL is 2.27.3"));
  CHECK_THAT(usage_error_text([&] { load_sweep_text("config:\n  max_ctas: [8, eight]\n", "c.yaml"); }),
             ContainsSubstring("c.yaml:2:17: max_ctas: 'eight' is not a whole number"));
}

TEST_CASE("each value is checked where it stands: file:line:column of the value, not the key") {
  CHECK(usage_error_text([] { load_sweep_text("env:\n  NCCL_PROTO:\n    - LL\n    - Simpel\n", "v.yaml"); }) ==
        "v.yaml:4:7: NCCL_PROTO: unknown protocol 'Simpel' (did you mean Simple?)\n"
        "  fix: NCCL_PROTO takes protocols LL, LL128, Simple (any case), separated by commas; '^' first excludes them "
        "(^LL); per collective after ';' as Broadcast, Reduce, AllGather, ReduceScatter, AllReduce: e.g. "
        "Simple;allreduce:^LL; for a newer NCCL, allow_unknown_values: true (or --allow-unknown-values) passes values "
        "unchecked");
  // One scalar instead of a list, and a value only an include adds.
  CHECK_THAT(usage_error_text([] { load_sweep_text("env:\n  NCCL_IB_SL: 16\n", "v.yaml"); }),
             ContainsSubstring("v.yaml:2:15: NCCL_IB_SL: 16 is out of range"));
  CHECK_THAT(usage_error_text([] {
               load_sweep_text("env:\n  NCCL_PROTO: [LL]\ninclude:\n  - {NCCL_PROTO: LL, NCCL_ALGO: Tre}\n", "v.yaml");
             }),
             ContainsSubstring("v.yaml:4:33: NCCL_ALGO: unknown algorithm 'Tre' (did you mean Tree?)"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("env:\n  NCCL_PROTO: [LL, Simple]\nbaseline: {NCCL_PROTO: ll128x}\n", "v.yaml"); }),
             ContainsSubstring("v.yaml:3:24: NCCL_PROTO: unknown protocol 'll128x' (did you mean LL128?)"));
  // A variable passed by allow_unknown_env has no kind: its values pass.
  CHECK_NOTHROW(load_sweep_text("allow_unknown_env: true\nenv:\n  NCCL_FUTURE_KNOB: [anything]\n", "v.yaml"));
}

TEST_CASE("allow_unknown_values, in the file or from the command line, passes values and the plan says so") {
  const std::string text = "env:\n  NCCL_ALGO: [Ring, FutureAlgo]\nconfig:\n  max_ctas: [128]\n";
  CHECK_THAT(usage_error_text([&] { load_sweep_text(text, "u.yaml"); }), ContainsSubstring("unknown algorithm 'FutureAlgo'"));
  const Sweep from_file = load_sweep_text(text + "allow_unknown_values: true\n", "u.yaml");
  CHECK(from_file.env.front().values.back() == "FutureAlgo");
  SweepContext context;
  context.allow_unknown_values = true;
  const Sweep from_flag = load_sweep_text(text, "u.yaml", context);
  PlanOptions options;
  options.context = context;
  const SweepPlan plan = plan_sweep(from_flag, options);
  CHECK(std::any_of(plan.notes.begin(), plan.notes.end(), [](const std::string& note) {
    return note.find("allow_unknown_values: setting values pass unchecked") != std::string::npos;
  }));
  CHECK(plan_sweep(load_sweep_text("env:\n  NCCL_ALGO: [Ring]\n", "u.yaml"), PlanOptions{}).notes.empty());
  // ncclConfig_t still holds an int, and broken UTF-8 is never passed.
  CHECK_THAT(usage_error_text([] { load_sweep_text("allow_unknown_values: true\nconfig:\n  max_ctas: [many]\n", "u.yaml"); }),
             ContainsSubstring("u.yaml:3:14: max_ctas: 'many' is not a whole number"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("allow_unknown_values: true\nenv:\n  NCCL_NET: [\"I\xff\" \"B\"]\n", "u.yaml"); }),
             ContainsSubstring("u.yaml:3:16: the file is not valid UTF-8 (byte 0xff)"));
}

TEST_CASE("a config field that cannot be swept is refused with the fields that can") {
  const std::string message = usage_error_text([] { load_sweep_text("config:\n  blocking: [0]\n", "b.yaml"); });
  CHECK_THAT(message, ContainsSubstring("b.yaml:2:3: config field blocking cannot be swept: ncclsweep's calls wait"));
  CHECK_THAT(message, ContainsSubstring("sweepable config fields: cga_cluster_size, min_ctas, max_ctas, net_name"));
  CHECK_THAT(usage_error_text([] { load_sweep_text("include:\n  - {blocking: 0}\n", "b.yaml"); }),
             ContainsSubstring("config field blocking cannot be swept"));
}

TEST_CASE("command-line values: checked like the file's, named by their flag; broken UTF-8 refused") {
  PlanOptions options;
  options.env_axes = {"NCCL_IB_QPS_PER_CONNECTION=2,-3"};
  CHECK(usage_error_text([&] { plan_sweep(load_sweep_text("{}", "(command line)"), options); }) ==
        "--env NCCL_IB_QPS_PER_CONNECTION=2,-3: NCCL_IB_QPS_PER_CONNECTION: -3 is out of range\n"
        "  fix: NCCL_IB_QPS_PER_CONNECTION takes a whole number from 1 to 128 (decimal, or hexadecimal as 0x..); for a "
        "newer NCCL, allow_unknown_values: true (or --allow-unknown-values) passes values unchecked");
  CHECK(usage_error_text([] { parse_axis_argument("NCCL_SOCKET_IFNAME=et\xffh0", "--env"); }) ==
        "--env: the value is not valid UTF-8 (byte 0xff at offset 21)\n"
        "  fix: NCCL variable names and values are plain ASCII");
}

TEST_CASE("command-line axes parse as NAME=v1,v2 and replace a file axis of the same name") {
  std::vector<SweepAxis> axes{{"NCCL_PROTO", {"LL"}, {}}, {"NCCL_ALGO", {"Ring"}, {}}};
  set_axis(axes, parse_axis_argument("NCCL_PROTO=LL128,Simple", "--env"));
  set_axis(axes, parse_axis_argument("NCCL_MAX_NCHANNELS=8", "--env"));
  REQUIRE(axes.size() == 3);
  CHECK(axes[0].values == std::vector<std::string>{"LL128", "Simple"});
  CHECK(axes[2].name == "NCCL_MAX_NCHANNELS");
  CHECK_THAT(usage_error_text([] { parse_axis_argument("NCCL_PROTO", "--env"); }), ContainsSubstring("expected NAME=v1,v2"));
  CHECK_THAT(usage_error_text([] { parse_axis_argument("max_ctas=8,,32", "--config"); }), ContainsSubstring("empty value"));
}

TEST_CASE("the same command-line axis twice is refused, naming the variable and both flags") {
  PlanOptions options;
  options.env_axes = {"NCCL_PROTO=LL,Simple", "NCCL_PROTO=LL128"};
  CHECK(usage_error_text([&] { plan_sweep(load_sweep_text("{}", "(command line)"), options); }) ==
        "--env NCCL_PROTO=LL128: NCCL_PROTO is given twice, also as --env NCCL_PROTO=LL,Simple\n"
        "  fix: give NCCL_PROTO one --env with all its values, e.g. --env NCCL_PROTO=v1,v2");
  options.env_axes.clear();
  options.config_axes = {"max_ctas=8", "max_ctas=32"};
  CHECK_THAT(usage_error_text([&] { plan_sweep(load_sweep_text("{}", "(command line)"), options); }),
             ContainsSubstring("max_ctas is given twice"));
}

TEST_CASE("the variable table is sorted, unique, and classifies the re-read variables") {
  const auto vars = nccl_variables();
  CHECK(std::is_sorted(vars.begin(), vars.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  CHECK(std::adjacent_find(vars.begin(), vars.end(), [](const auto& a, const auto& b) { return a.name == b.name; }) == vars.end());
  for (const char* reread : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_TOPO_FILE", "NCCL_GRAPH_FILE", "NCCL_COLLNET_ENABLE", "NCCL_NET"}) {
    CHECK(variable_kind(reread) == VariableKind::reread_each_init);
  }
  const auto reread_count = std::count_if(vars.begin(), vars.end(), [](const auto& v) { return v.kind == VariableKind::reread_each_init; });
  CHECK(reread_count == 6);
  // docs/nccl-settings.md: cached ones, and the safe default for unknown ones.
  for (const char* cached : {"NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE",
                             "NCCL_P2P_LEVEL", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_NVLS_ENABLE", "NCCL_NO_SUCH_THING"}) {
    CHECK(variable_kind(cached) == VariableKind::process_cached);
  }
}

TEST_CASE("every config field's override variable is in the variable table") {
  for (const auto& field : config_fields()) {
    if (field.override_env.empty()) continue;
    INFO(field.name);
    CHECK(find_nccl_variable(field.override_env) != nullptr);
  }
  CHECK(find_config_field("max_ctas")->override_env == "NCCL_MAX_CTAS");
  CHECK(find_config_field("net_name")->override_env == "NCCL_NET");
}

TEST_CASE("NCCL versions convert between codes and text in both numbering schemes") {
  CHECK(nccl_version_text(22809) == "2.28.9");
  CHECK(nccl_version_text(21403) == "2.14.3");
  CHECK(nccl_version_text(2708) == "2.7.8");  // before 2.9: MAJOR*1000 + MINOR*100 + PATCH
  CHECK(cuda_version_text(13000) == "13.0");
  CHECK(cuda_version_text(12040) == "12.4");
  CHECK(nccl_version_code("2.28.9") == 22809);
  CHECK(nccl_version_code("2.18") == 21800);
  CHECK(nccl_version_code(nccl_version_text(22703)) == 22703);
  CHECK(nccl_version_code("unknown") == 0);
  CHECK(nccl_version_code("2.123.1") == 0);  // a minor past 99 has no code
}

TEST_CASE("suggestions pick the nearest name and stay quiet for unrelated words") {
  const std::vector<std::string> names{"collectives", "config", "sizes"};
  CHECK(closest_name("collective", names) == "collectives");
  CHECK(closest_name("SIZES", names) == "sizes");
  CHECK(closest_name("bandwidth", names).empty());
  // Two neighbours swapped is one typo: the swap wins over a name two edits away.
  CHECK(closest_name("bfloat61", {"float64", "bfloat16"}) == "bfloat16");
  CHECK(closest_name("Rnig", {"Tree", "Ring"}) == "Ring");
}

TEST_CASE("a variable that include adds may not override a swept config field either") {
  CHECK_THAT(usage_error_text([] {
               load_sweep_text("config:\n  min_ctas: [4, 8]\ninclude:\n  - {min_ctas: 4, NCCL_MIN_CTAS: 2}\n", "i.yaml");
             }),
             ContainsSubstring("i.yaml:4:5: NCCL_MIN_CTAS overrides config field min_ctas"));
}
