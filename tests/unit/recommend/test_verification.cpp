// `run --verify-recommendation`: reading the three kinds of file, the sweep it measures,
// and the check of a finished run (fabricated by tests/data/recommend/make_runs.py).
#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "read_file.hpp"
#include "recommend/exports.hpp"
#include "recommend/recommendation.hpp"
#include "recommend/verification.hpp"
#include "results/results_directory.hpp"
#include "spec/sweep.hpp"
#include "scratch.hpp"

namespace {

using namespace ncclsweep;
namespace fs = std::filesystem;


// A file in the temporary directory, removed at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text) : path_(ncclsweep::testing::scratch_root() / name) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { fs::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

const std::string kRule = "allgather,1048576,16777216,ring,ll,-1,1,2,-1,-1";

using NameValues = std::vector<std::pair<std::string, std::string>>;
NameValues name_values(const std::vector<RecommendedVariable>& env) {
  NameValues out;
  for (const RecommendedVariable& v : env) out.emplace_back(v.name, v.value);
  return out;
}

}  // namespace

TEST_CASE("env files are read in all three styles recommend writes", "[verify]") {
  for (const std::string& text : {std::string("# comment\nNCCL_IB_QPS_PER_CONNECTION=4\nNCCL_ALGO='Ring,Tree'\n"),
                                  std::string("export NCCL_IB_QPS_PER_CONNECTION=4\nexport NCCL_ALGO='Ring,Tree'\n")}) {
    TempFile file("ncclsweep-verify.env", text);
    const RecommendedSettings rec = read_recommendation(file.path(), "");
    CHECK(rec.kind == RecommendedSettings::Kind::env);
    CHECK(name_values(rec.env) == NameValues{{"NCCL_IB_QPS_PER_CONNECTION", "4"}, {"NCCL_ALGO", "Ring,Tree"}});
  }
  TempFile list("ncclsweep-verify.env", "NCCL_IB_QPS_PER_CONNECTION=4,NCCL_IB_SPLIT_DATA_ON_QPS=1\n");
  CHECK(read_recommendation(list.path(), "").env.size() == 2);
  TempFile bad("ncclsweep-verify.env", "# x\nNCCL_X=1\nnot a setting\n");
  CHECK_THAT(usage_error_text([&] { read_recommendation(bad.path(), ""); }), ContainsSubstring(":3:1: 'not a setting' is not KEY=VALUE"));
  TempFile empty("ncclsweep-verify.env", "# nothing exported\n");
  CHECK_THAT(usage_error_text([&] { read_recommendation(empty.path(), ""); }), ContainsSubstring("recommends nothing"));
}

TEST_CASE("a tuner CSV is verified with the plugin, whose bad lines are refused up front", "[verify]") {
  TempFile plugin("ncclsweep-verify-plugin.so", "");
  TempFile csv("ncclsweep-verify.conf", "# rules\n" + kRule + "\n");
  const RecommendedSettings rec = read_recommendation(csv.path(), plugin.path());
  CHECK(rec.kind == RecommendedSettings::Kind::tuner);
  REQUIRE(rec.rules.size() == 1);
  CHECK(name_values(rec.env) == NameValues{{"NCCL_TUNER_PLUGIN", plugin.path()}, {"NCCL_TUNER_CONFIG_FILE", csv.path()}});
  CHECK_THAT(usage_error_text([&] { read_recommendation(csv.path(), "/nonexistent/lib.so"); }),
             ContainsSubstring("no tuner plugin at '/nonexistent/lib.so'"));
  TempFile bad("ncclsweep-verify.conf", kRule + "\nallgather,0,1,ring,lx,-1,-1,-1\n");
  CHECK_THAT(usage_error_text([&] { read_recommendation(bad.path(), plugin.path()); }),
             ContainsSubstring(":2:1: unknown protocol 'lx'"));
}

TEST_CASE("the verification sweep is one recommended point plus NCCL's defaults in their own group", "[verify]") {
  TempFile plugin("ncclsweep-verify-plugin.so", "");
  TempFile csv("ncclsweep-verify.conf", kRule + "\nallreduce,0,4096,tree,ll,-1,-1,-1\n");
  const RecommendedSettings rec = read_recommendation(csv.path(), plugin.path());
  const Sweep sweep = verification_sweep(rec, {});
  CHECK(sweep.repeats == 3);
  CHECK(sweep.order == RepeatOrder::interleaved);
  const SweepPlan plan = with_default_point(plan_sweep(sweep, {}));
  REQUIRE(plan.points.size() == 2);
  CHECK(plan.points[0].label == "default");
  CHECK(plan.points[0].settings.empty());
  CHECK(plan.baseline == 0);
  REQUIRE(plan.isolation_groups.size() == 2);
  CHECK(plan.isolation_groups[0].process_env.empty());
  CHECK(plan.isolation_groups[1].process_env.at("NCCL_TUNER_PLUGIN") == plugin.path());
  CHECK(plan.isolation_groups[1].points == std::vector<int>{1});
  CHECK(plan.points[1].isolation_group == 1);
  // The rules' collectives and their range ends are what is measured.
  CHECK(plan.measurements.sizes == std::vector<Bytes>{4096, 1 << 20, 16 << 20});
  CHECK(plan.measurements.collectives == std::vector<const CollectiveKind*>{&collective("all_gather"), &collective("all_reduce")});
}

TEST_CASE("a recommended value NCCL does not know is refused at its line in the env file", "[verify]") {
  TempFile env("ncclsweep-verify.env", "# from recommend\nNCCL_IB_QPS_PER_CONNECTION=4\nNCCL_PROTO=Simpel\n");
  const RecommendedSettings rec = read_recommendation(env.path(), "");
  const std::string refusal = usage_error_text([&] { verification_sweep(rec, {}); });
  CHECK_THAT(refusal, ContainsSubstring(env.path() + ":3:1"));
  CHECK_THAT(refusal, ContainsSubstring("Simpel"));
  // A variable outside NCCL's table is measured as given: the recommendation may be newer.
  TempFile future("ncclsweep-verify.env", "NCCL_FUTURE_KNOB=1\n");
  CHECK(verification_sweep(read_recommendation(future.path(), ""), {}).env.at(0).values == std::vector<std::string>{"1"});
}

TEST_CASE("recommend's yaml export is a sweep file the loader accepts", "[verify]") {
  const Sweep sweep = load_sweep_file((kRecommendData / "golden" / "clear-winner.yaml").string());
  const SweepPlan plan = plan_sweep(sweep, {});
  REQUIRE(plan.points.size() == 2);
  CHECK(plan.points[static_cast<std::size_t>(plan.baseline)].label == "NCCL_PROTO=Simple");
  CHECK(plan.points[1 - static_cast<std::size_t>(plan.baseline)].label == "NCCL_PROTO=LL");
  CHECK(load_sweep_file((kRecommendData / "golden" / "mixed.yaml").string()).env.size() == 2);
}

TEST_CASE("a size where NCCL chose otherwise than the rule is a mismatch, never a win", "[verify]") {
  const auto rules = tuner::parse_tuner_rules(kRule).rules;
  const VerificationReport report = check_verification(read_run_document(kRecommendData / "verify-tuned"), rules);
  REQUIRE(report.bands.size() == 1);
  const VerifiedBand& band = report.bands[0];
  CHECK(band.faster == 2);
  CHECK(band.mismatch == 1);
  CHECK(band.sizes == 2);
  CHECK(band.verdict == "mismatch");
  REQUIRE(band.mismatches.size() == 1);
  CHECK(band.mismatches[0] == "all_gather 16 MiB: NCCL chose RING/SIMPLE, the rule asks RING/LL");
  CHECK_FALSE(report.failed());
  CHECK_THAT(report.text(), ContainsSubstring("verify-recommendation: PASS"));
}

TEST_CASE("a recommended band slower than the default beyond noise fails the verification", "[verify]") {
  const auto rules = tuner::parse_tuner_rules(kRule).rules;
  const VerificationReport report = check_verification(read_run_document(kRecommendData / "verify-slower"), rules);
  REQUIRE(report.bands.size() == 1);
  CHECK(report.bands[0].slower == 3);
  CHECK(report.bands[0].verdict == "slower");
  CHECK(report.failed());
  CHECK_THAT(report.text(), ContainsSubstring("FAIL: a recommended band is slower"));
  // Without rules (an env file) the band is the collective, and the same run fails.
  const VerificationReport env = check_verification(read_run_document(kRecommendData / "verify-slower"), {});
  REQUIRE(env.bands.size() == 1);
  CHECK(env.bands[0].band == "all_gather");
  CHECK(env.failed());
}
