// `recommend` on the fabricated sweeps of tests/data/recommend (make_runs.py writes them):
// what wins where, what is never recommended, and the exports byte for byte.
// NCCLSWEEP_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review the diff).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "read_file.hpp"
#include "recommend/exports.hpp"
#include "recommend/recommendation.hpp"
#include "results/results_directory.hpp"
#include "tuner/tuner_rules.hpp"

namespace {

using namespace ncclsweep;
namespace fs = std::filesystem;


RunInput load(const std::string& name) { return {read_run_document(kRecommendData / name), name}; }

Recommendation recommend_from(const std::string& name) { return recommend({load(name)}); }

// Compares with tests/data/recommend/golden/<file>, or writes it when asked to.
void check_golden(const std::string& file, const std::string& text) {
  const fs::path path = kRecommendData / "golden" / file;
  if (const char* update = std::getenv("NCCLSWEEP_UPDATE_GOLDEN"); update && *update == '1') {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  INFO("golden file " << path);
  CHECK(read_file(path) == text);
}

int rule_lines(const std::string& csv) { return static_cast<int>(tuner::parse_tuner_rules(csv).rules.size()); }

int env_lines(const std::string& env) {
  int lines = 0;
  for (std::size_t at = 0; at < env.size();) {
    const std::size_t end = env.find('\n', at);
    if (env[at] != '#') ++lines;
    at = end == std::string::npos ? env.size() : end + 1;
  }
  return lines;
}

const Band* band_with_winner(const Recommendation& rec, const std::string& winner) {
  for (const auto& b : rec.bands) {
    if (b.winner == winner) return &b;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a clear winner in one band gives one tuner line and one env line", "[recommend]") {
  const Recommendation rec = recommend_from("clear-winner");
  CHECK(rec.baseline == "NCCL_PROTO=Simple");
  CHECK(rec.baseline_reason == "the sweep's baseline");
  REQUIRE(rec.bands.size() == 2);
  const Band& won = rec.bands[0];
  CHECK(won.winner == "NCCL_PROTO=LL");
  CHECK(won.sizes == std::vector<Bytes>{1 << 20, 4 << 20, 16 << 20});
  CHECK(won.median_gain == Approx(0.30).epsilon(0.01));
  CHECK(won.worst_gain == Approx(0.25).epsilon(0.01));
  CHECK(won.support == 3 * 2 * 3);  // 3 sizes x (winner + baseline) x 3 repeats
  CHECK(won.logged_algorithm == "RING");
  // +1% at 64 MiB is inside the noise: the default stays there, and says so.
  CHECK(rec.bands[1].winner.empty());
  CHECK_THAT(rec.bands[1].why, ContainsSubstring("beyond the noise"));

  const std::string csv = format_nccl_tuner(rec);
  REQUIRE(rule_lines(csv) == 1);
  CHECK(tuner::format_rule(tuner::parse_tuner_rules(csv).rules[0]) == "allgather,1048576,16777216,ring,ll,-1,1,2,-1,-1");
  const std::string env = format_env(rec, EnvStyle::plain);
  CHECK(env_lines(env) == 1);
  CHECK_THAT(env, ContainsSubstring("\nNCCL_PROTO=LL\n"));

  check_golden("clear-winner.txt", format_recommend_table(rec));
  check_golden("clear-winner.env", env);
  check_golden("clear-winner.export.env", format_env(rec, EnvStyle::export_block));
  check_golden("clear-winner.container.env", format_env(rec, EnvStyle::container));
  check_golden("clear-winner.conf", csv);
  check_golden("clear-winner.yaml", format_recommend_yaml(rec));
  check_golden("clear-winner.json", format_recommend_json(rec));
}

TEST_CASE("a point that wins only inside the noise gives no line", "[recommend]") {
  const Recommendation rec = recommend_from("noise-win");
  REQUIRE(rec.bands.size() == 1);
  CHECK(rec.bands[0].winner.empty());
  CHECK(rule_lines(format_nccl_tuner(rec)) == 0);
  CHECK(env_lines(format_env(rec, EnvStyle::plain)) == 0);
  CHECK(format_env(rec, EnvStyle::container).empty());
  check_golden("noise-win.conf", format_nccl_tuner(rec));
}

TEST_CASE("a point with a not-read setting is never recommended", "[recommend]") {
  const Recommendation rec = recommend_from("not-read");
  CHECK(rec.baseline == "default");
  CHECK(rec.baseline_reason == "the point without settings: NCCL's own choices");
  for (const auto& band : rec.bands) CHECK(band.winner.empty());
  CHECK(rec.env.empty());
  REQUIRE(rec.notes.size() == 1);
  CHECK_THAT(rec.notes[0], ContainsSubstring("NCCL_IB_QPS_PER_CONNECTION=4 was not-read"));
  check_golden("not-read.txt", format_recommend_table(rec));
}

TEST_CASE("mixed winners give several bands, and settings that also lose are flagged", "[recommend]") {
  const Recommendation rec = recommend_from("mixed");
  std::vector<std::string> winners;
  for (const auto& b : rec.bands) winners.push_back(b.winner + " " + std::to_string(b.sizes.size()));
  CHECK(winners == std::vector<std::string>{"NCCL_PROTO=LL NCCL_MAX_NCHANNELS=32 2", "NCCL_PROTO=LL128 NCCL_MAX_NCHANNELS=32 2",
                                            " 1", "NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=16 1"});
  const std::string csv = format_nccl_tuner(rec);
  const auto rules = tuner::parse_tuner_rules(csv).rules;
  REQUIRE(rules.size() == 3);
  CHECK(tuner::format_rule(rules[0]) == "allgather,1048576,4194304,ring,ll,-1,1,2,-1,-1");
  CHECK(tuner::format_rule(rules[1]) == "allgather,16777216,67108864,ring,ll128,-1,1,2,-1,-1");
  // Fewer channels won: the rule carries the count NCCL logged for that point.
  CHECK(tuner::format_rule(rules[2]) == "allgather,1073741824,1073741824,ring,simple,16,1,2,-1,-1");
  // LL wins small sizes but loses large ones: no one point holds everywhere, so the
  // job-wide export is refused (exit 2) and names where each winner loses.
  for (const auto& e : rec.env) CHECK_FALSE(e.exported);
  CHECK(rec.job_wide.point.empty());
  const std::string refusal = usage_error_text([&] { format_env(rec, EnvStyle::plain); });
  CHECK_THAT(refusal, ContainsSubstring("no job-wide export"));
  CHECK_THAT(refusal, ContainsSubstring("NCCL_PROTO=LL NCCL_MAX_NCHANNELS=32 loses at all_gather 16 MiB"));
  CHECK_THAT(refusal, ContainsSubstring("--format nccl-tuner"));
  check_golden("mixed.txt", format_recommend_table(rec));
  check_golden("mixed.conf", csv);
  check_golden("mixed.yaml", format_recommend_yaml(rec));
}

TEST_CASE("workload weighting changes the env choice", "[recommend]") {
  const Recommendation grid = recommend_from("qps-grid");
  const Recommendation job = recommend_from("qps-workload");
  // The same measurements: 4 QPs lose at 1 MiB and win at the bucket sizes.
  REQUIRE(band_with_winner(grid, "NCCL_IB_QPS_PER_CONNECTION=4"));
  REQUIRE(grid.env.size() == 1);
  CHECK_FALSE(grid.env[0].exported);
  REQUIRE(grid.job_wide.disagreeing.size() == 1);
  CHECK_THAT(grid.job_wide.disagreeing[0],
             ContainsSubstring("loses at all_gather 1 MiB (slower than the baseline beyond noise), reduce_scatter 1 MiB"));
  // The job sends no 1 MiB calls: the loss there does not matter, so it is exported.
  REQUIRE(job.env.size() == 1);
  CHECK(job.env[0].exported);
  CHECK(job.env[0].share == Approx(1.0));
  CHECK_THAT(usage_error_text([&] { format_env(grid, EnvStyle::plain); }), ContainsSubstring("no job-wide export"));
  CHECK(format_env(job, EnvStyle::export_block).find("export NCCL_IB_QPS_PER_CONNECTION=4\n") != std::string::npos);
  // A tuner cannot set QPs: no rule, a note that says to use env.
  const TunerExport tuner = tuner_export(job);
  CHECK(tuner.lines.empty());
  REQUIRE_FALSE(tuner.notes.empty());
  CHECK_THAT(tuner.notes[0], ContainsSubstring("which a tuner cannot set: --format env exports it for the whole job"));
  check_golden("qps-workload.env", format_env(job, EnvStyle::plain));
  check_golden("qps-workload.container.env", format_env(job, EnvStyle::container));
  check_golden("qps-workload.conf", format_nccl_tuner(job));
}

TEST_CASE("a variable a tuner cannot set that wins some bands gets the per-job environment that carries it",
          "[recommend]") {
  // 4 QPs win the bucket sizes and lose at 1 MiB; no workload says which the job sends.
  const Recommendation grid = recommend_from("qps-grid");
  const std::string refusal = usage_error_text([&] { format_env(grid, EnvStyle::plain); });
  CHECK_THAT(refusal, ContainsSubstring("for a job whose calls all fall in all_gather 256 MiB .. 1 GiB, reduce_scatter 256 MiB "
                                        ".. 1 GiB, --format env --job-sizes 256M,1G exports NCCL_IB_QPS_PER_CONNECTION=4"));
  // No rule can carry it, so the refusal does not send the user to the tuner export.
  CHECK_THAT(refusal, !ContainsSubstring("nccl-tuner"));
  const TunerExport tuner = tuner_export(grid);
  CHECK(tuner.lines.empty());
  REQUIRE(tuner.notes.size() == 2);
  for (const std::string& note : tuner.notes) CHECK_THAT(note, ContainsSubstring("--format env --job-sizes 256M,1G"));
  CHECK_THAT(format_nccl_tuner(grid), ContainsSubstring("# no rule: all_gather 256 MiB .. 1 GiB: the winner also needs "
                                                        "NCCL_IB_QPS_PER_CONNECTION=4, which a tuner cannot set: for a job"));
  CHECK_THAT(format_recommend_table(grid), ContainsSubstring("per job: NCCL_IB_QPS_PER_CONNECTION=4 for a job whose calls"));
  // The pointer leads to the export: the job of those sizes gets 4 QPs, the bands named.
  RecommendOptions options;
  options.job_sizes = parse_job_sizes("256M,1G");
  const Recommendation job = recommend({load("qps-grid")}, options);
  CHECK(job.job_wide.point == "NCCL_IB_QPS_PER_CONNECTION=4");
  const std::string env = format_env(job, EnvStyle::plain);
  CHECK_THAT(env, ContainsSubstring("\nNCCL_IB_QPS_PER_CONNECTION=4\n"));
  CHECK_THAT(env, ContainsSubstring("# sizes weighed: the sizes given with --job-sizes (256M,1G)"));
  CHECK_THAT(env, ContainsSubstring("# exported: NCCL_IB_QPS_PER_CONNECTION=4: wins at all_gather 256 MiB .. 1 GiB, "
                                    "reduce_scatter 256 MiB .. 1 GiB"));
  // A job that also sends 1 MiB calls is refused again, with the same way out.
  options.job_sizes = parse_job_sizes("1M,1G");
  CHECK_THAT(usage_error_text([&] { format_env(recommend({load("qps-grid")}, options), EnvStyle::plain); }),
             ContainsSubstring("--job-sizes 256M,1G"));
}

TEST_CASE("a per-job environment names each collective's sizes when they differ", "[recommend]") {
  // 4 QPs win all_gather at 256 MiB and 1 GiB, reduce_scatter only at 1 GiB.
  const Recommendation rec = recommend_from("qps-uneven");
  const TunerExport tuner = tuner_export(rec);
  REQUIRE(tuner.per_job.size() == 1);
  CHECK(tuner.per_job[0].job_sizes == "all_gather:256M,all_gather:1G,reduce_scatter:1G");
  RecommendOptions options;
  options.job_sizes = parse_job_sizes(tuner.per_job[0].job_sizes);
  const Recommendation job = recommend({load("qps-uneven")}, options);
  CHECK(job.job_wide.point == "NCCL_IB_QPS_PER_CONNECTION=4");
  // A job size beyond what was measured is refused, named.
  options.job_sizes = parse_job_sizes("all_gather:4G");
  CHECK_THAT(recommend({load("qps-uneven")}, options).job_wide.refusal, ContainsSubstring("all_gather 4 GiB"));
}

TEST_CASE("with a workload and no job-wide export, the single setting with the least iteration time is named",
          "[recommend]") {
  // The job sends 200 calls of 1 MiB and 2 of 1 GiB per collective: 4 QPs lose at one and
  // win at the other, and take less time over the iteration.
  const Recommendation rec = recommend_from("qps-iteration");
  CHECK(rec.job_wide.point.empty());
  CHECK_THAT(rec.iteration_best, ContainsSubstring("the one setting with the least is NCCL_IB_QPS_PER_CONNECTION=4: "
                                                   "35.89 ms/iter against 44.2 ms/iter for the baseline (19% less)"));
  CHECK_THAT(usage_error_text([&] { format_env(rec, EnvStyle::plain); }), ContainsSubstring(rec.iteration_best));
  CHECK_THAT(format_recommend_table(rec), ContainsSubstring(rec.iteration_best));
}

TEST_CASE("every refused env export points only to exports that write what the bands need", "[recommend]") {
  // The class: for every fabricated sweep, each way out the refusal offers writes
  // something, and every winning band is carried by a tuner rule or a per-job environment.
  for (const auto& entry : fs::directory_iterator(kRecommendData)) {
    if (!fs::exists(entry.path() / "run.json")) continue;
    const std::string name = entry.path().filename().string();
    INFO(name);
    const Recommendation rec = recommend_from(name);
    if (rec.job_wide.refusal.empty()) continue;
    const std::string refusal = usage_error_text([&] { format_env(rec, EnvStyle::plain); });
    const TunerExport tuner = tuner_export(rec);
    if (refusal.find("--format nccl-tuner") != std::string::npos) CHECK_FALSE(tuner.lines.empty());
    for (const PerJobEnv& p : tuner.per_job) {
      CHECK_THAT(refusal, ContainsSubstring(p.command()));
      RecommendOptions options;
      options.job_sizes = parse_job_sizes(p.job_sizes);
      const Recommendation job = recommend({load(name)}, options);
      CHECK_FALSE(job.job_wide.point.empty());
      if (job.job_wide.point == p.point) {
        for (const std::string& setting : p.settings) CHECK_THAT(format_env(job, EnvStyle::plain), ContainsSubstring("\n" + setting + "\n"));
      }
    }
    for (const Band& band : rec.bands) {
      if (band.winner.empty()) continue;
      const bool ruled = std::any_of(tuner.lines.begin(), tuner.lines.end(), [&](const TunerLine& l) {
        return l.rule.min_bytes == band.sizes.front() && l.rule.max_bytes == band.sizes.back();
      });
      const bool per_job = std::any_of(tuner.per_job.begin(), tuner.per_job.end(), [&](const PerJobEnv& p) {
        return std::find(p.bands.begin(), p.bands.end(), band_label(band)) != p.bands.end();
      });
      INFO(band_label(band));
      CHECK((ruled || per_job));
    }
  }
}

TEST_CASE("--job-sizes reads sizes, ranges and collective-named sizes, and refuses the rest", "[recommend]") {
  const auto sizes = parse_job_sizes("1G, all_gather:1M:4M,256M");
  REQUIRE(sizes.size() == 5);
  CHECK(job_sizes_text(sizes) == "256M,1G,all_gather:1M,all_gather:2M,all_gather:4M");
  CHECK(parse_job_sizes(job_sizes_text(sizes)) == sizes);
  CHECK_THAT(usage_error_text([] { parse_job_sizes("allgather:1M"); }), ContainsSubstring("--job-sizes 'allgather:1M'"));
  CHECK_THAT(usage_error_text([] { parse_job_sizes("1Q"); }), ContainsSubstring("--job-sizes '1Q'"));
  CHECK_THAT(usage_error_text([] { parse_job_sizes("0"); }),
             ContainsSubstring("--job-sizes '0': 0 bytes is not a size a job sends"));
  CHECK_THAT(usage_error_text([] { parse_job_sizes("1M,all_gather:0"); }), ContainsSubstring("--job-sizes 'all_gather:0'"));
}

TEST_CASE("a job whose sizes weigh no measured size is refused job-wide, not judged on no gains", "[recommend]") {
  RecommendOptions options;
  options.job_sizes = {{nullptr, 0}};
  CHECK(recommend({load("qps-uneven")}, options).job_wide.point.empty());
  options.job_sizes = parse_job_sizes("all_reduce:1M");
  CHECK_THAT(recommend({load("qps-uneven")}, options).job_wide.refusal, ContainsSubstring("all_reduce (never measured)"));
}

TEST_CASE("a winner that loses at a larger size is refused job-wide and offered per size", "[recommend]") {
  // LL +25-30% at 1-16 MiB, -20% at 64 MiB: exporting NCCL_PROTO=LL for the job would
  // force LL on its large messages.
  const Recommendation rec = recommend_from("band-split");
  REQUIRE(rec.bands.size() == 2);
  CHECK(rec.bands[0].winner == "NCCL_PROTO=LL");
  CHECK(rec.bands[1].winner.empty());
  const std::string refusal = usage_error_text([&] { format_env(rec, EnvStyle::export_block); });
  CHECK_THAT(refusal, ContainsSubstring("all_gather 1 MiB .. 16 MiB: NCCL_PROTO=LL; all_gather 64 MiB: default kept"));
  CHECK_THAT(refusal, ContainsSubstring("NCCL_PROTO=LL loses at all_gather 64 MiB (slower than the baseline beyond noise)"));
  CHECK_THAT(refusal, ContainsSubstring("libncclsweep-tuner.so"));
  CHECK_THAT(usage_error_text([&] { format_env(rec, EnvStyle::container); }), ContainsSubstring("no job-wide export"));
  // The per-size export holds LL to the band it won.
  const auto rules = tuner::parse_tuner_rules(format_nccl_tuner(rec)).rules;
  REQUIRE(rules.size() == 1);
  CHECK(tuner::format_rule(rules[0]) == "allgather,1048576,16777216,ring,ll,-1,1,2,-1,-1");
  CHECK_THAT(format_recommend_table(rec), ContainsSubstring("job-wide (--format env): refused"));
}

TEST_CASE("a job whose sizes reach beyond the measured range gets no job-wide export", "[recommend]") {
  RunInput input = load("qps-workload");
  REQUIRE(input.run.workload);
  input.run.workload->calls.push_back({&collective("all_gather"), Bytes{4} << 30, &data_type("bfloat16"), CommunicatorKind::dp, 16, 1, "a 4 GiB bucket"});
  const Recommendation rec = recommend({input});
  CHECK(rec.job_wide.point.empty());
  CHECK_THAT(rec.job_wide.refusal, ContainsSubstring("the job sends sizes the sweep never measured (all_gather 4 GiB"));
  CHECK_THAT(usage_error_text([&] { format_env(rec, EnvStyle::plain); }), ContainsSubstring("all_gather 4 GiB"));
}

TEST_CASE("of tied winners the one with fewer channels is chosen, and it says so", "[recommend]") {
  // 8 and 32 channels both +20% over the default, within noise of each other; 32 is a
  // hair higher. 8 channels leave the job's compute 24 more SMs.
  const Recommendation rec = recommend_from("tied-channels");
  REQUIRE(rec.bands.size() == 1);
  CHECK(rec.bands[0].winner == "NCCL_MAX_NCHANNELS=8");
  bool said = false;
  for (const std::string& n : rec.notes) {
    said = said || n.find("chose NCCL_MAX_NCHANNELS=8 over NCCL_MAX_NCHANNELS=32, which tied within noise: the cheaper "
                          "(8 channels against 24") != std::string::npos;  // 32 asked, 24 logged
  }
  CHECK(said);
  CHECK(rec.job_wide.point == "NCCL_MAX_NCHANNELS=8");
  CHECK_THAT(format_env(rec, EnvStyle::plain), ContainsSubstring("\nNCCL_MAX_NCHANNELS=8\n"));
}

TEST_CASE("several runs are judged together, each against its own baseline", "[recommend]") {
  const Recommendation rec = recommend({load("clear-winner"), load("noise-win")});
  // noise-win's LL is ambiguous at every size, so no size is clear in both runs.
  for (const auto& band : rec.bands) CHECK(band.winner.empty());
  CHECK(rec.runs == std::vector<std::string>{"clear-winner", "noise-win"});
}

TEST_CASE("recommend refuses what it cannot judge", "[recommend]") {
  CHECK_THAT(usage_error_text([] { recommend({load("clear-winner"), load("qps-grid")}); }),
             ContainsSubstring("recommend from runs at one scale"));
  CHECK_THAT(usage_error_text([] { recommend({load("clear-winner")}, {"NCCL_PROTO=LL128", {}}); }),
             ContainsSubstring("give one of: NCCL_PROTO=Simple, NCCL_PROTO=LL"));
  CHECK_THAT(usage_error_text([] { recommend({load("not-read")}, {"NCCL_IB_QPS_PER_CONNECTION=4", {}}); }),
             ContainsSubstring("was not verified"));
}

TEST_CASE("the yaml export is a sweep file the loader accepts", "[recommend]") {
  // Loaded through the real sweep loader in the CLI test; here: the baseline and the winner.
  const std::string yaml = format_recommend_yaml(recommend_from("mixed"));
  CHECK_THAT(yaml, ContainsSubstring("NCCL_PROTO: [Simple, LL, LL128]"));
  CHECK_THAT(yaml, ContainsSubstring("NCCL_MAX_NCHANNELS: [32, 16]"));
  CHECK_THAT(yaml, ContainsSubstring("baseline: {NCCL_PROTO: Simple, NCCL_MAX_NCHANNELS: 32}"));
}

TEST_CASE("bands on sub-communicators carry the group's rank count and any node count", "[recommend]") {
  RunInput input = load("clear-winner");
  for (auto& r : input.run.records) {
    r.ranks = 1;  // as if measured on groups of 1 rank: NCCL's tuner sees a 1-rank communicator
    r.communicator = CommunicatorKind::size;
  }
  const Recommendation rec = recommend({input});
  REQUIRE_FALSE(rec.bands.empty());
  CHECK(rec.bands[0].ranks == 1);
  CHECK(rec.bands[0].nodes == -1);
  CHECK(rec.ranks == 2);
}
