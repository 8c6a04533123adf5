// A corpus of bad sweep files, each with the exact message a user sees (place, text, fix).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "catch_compat.hpp"
#include "spec/sweep.hpp"

using namespace ncclsweep;

namespace {

struct BadSweep {
  const char* file;
  int nccl_version;
  const char* message;
};

std::string load_message(const BadSweep& bad) {
  const std::filesystem::path path = std::filesystem::path(NCCLSWEEP_SOURCE_DIR) / "tests/data/bad-sweeps" / bad.file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  // Named relative, so messages do not depend on where the source tree is.
  return usage_error_text([&] { load_sweep_text(text.str(), std::string("bad-sweeps/") + bad.file, SweepContext{bad.nccl_version}); });
}

constexpr int kNewest = kNewestKnownNcclVersion;

// clang-format off
const BadSweep kCorpus[] = {
    {"alias-bomb.yaml", kNewest,
     "bad-sweeps/alias-bomb.yaml:2:29: the document expands to more than 100000 YAML nodes (aliases that repeat aliases?)\n  fix: write the values out; sweep files need no anchors or aliases"},
    {"config-field-too-new.yaml", 22602,
     "bad-sweeps/config-field-too-new.yaml:4:3: config field nvls_ctas needs NCCL 2.27.0 or newer; this NCCL is 2.26.2\n  fix: remove nvls_ctas, or build ncclsweep against a newer NCCL"},
    {"deep-nesting.yaml", kNewest,
     "bad-sweeps/deep-nesting.yaml:2:42: the document nests deeper than 32 levels\n  fix: sweep files need at most a few levels: key -> list or map of values"},
    {"duplicate-key.yaml", kNewest,
     "bad-sweeps/duplicate-key.yaml:4:1: duplicate key 'iters' (first at line 2)\n  fix: keep one of them; YAML maps hold each key once"},
    {"empty-list.yaml", kNewest,
     "bad-sweeps/empty-list.yaml:3:15: NCCL_PROTO has an empty list of values\n  fix: give at least one value, or remove NCCL_PROTO"},
    {"env-overrides-config.yaml", kNewest,
     "bad-sweeps/env-overrides-config.yaml:4:3: NCCL_MAX_CTAS overrides config field max_ctas, which this sweep varies\n  fix: sweep one of them: remove NCCL_MAX_CTAS from env or max_ctas from config"},
    {"exclude-unknown-value.yaml", kNewest,
     "bad-sweeps/exclude-unknown-value.yaml:5:18: exclude gives NCCL_PROTO=LL128, which is not among its values\n  fix: use one of the values listed for NCCL_PROTO, spelt as listed: LL, Simple"},
    {"exclude-value-case.yaml", kNewest,
     "bad-sweeps/exclude-value-case.yaml:5:18: exclude gives NCCL_PROTO=simple, which is not among its values (did you mean Simple?)\n  fix: use one of the values listed for NCCL_PROTO, spelt as listed: LL, Simple"},
    {"nul-byte.yaml", kNewest,
     "bad-sweeps/nul-byte.yaml:3:10: the file holds a NUL byte, which no YAML text has (a binary file, or one saved as UTF-16?)\n  fix: give a YAML text file saved as UTF-8"},
    {"mpi-engine-env-grid.yaml", kNewest,
     "bad-sweeps/mpi-engine-env-grid.yaml:5:3: the mpi engine cannot apply NCCL variables, and this sweep sets NCCL_PROTO\n  fix: use engine nccl, or drop env (collectives, sizes, dtypes and ops still sweep with mpi; the testing aid's NCCLSWEEP_TEST_SLOWDOWN variables are the env axes it takes)"},
    {"nccl-engine-test-slowdown.yaml", kNewest,
     "bad-sweeps/nccl-engine-test-slowdown.yaml:5:3: NCCLSWEEP_TEST_SLOWDOWN is the mpi engine's testing aid (docs/search.md); NCCL never reads it\n  fix: use engine: mpi for a test of the search, or drop NCCLSWEEP_TEST_SLOWDOWN"},
    {"test-slowdown-bad-value.yaml", kNewest,
     "bad-sweeps/test-slowdown-bad-value.yaml:5:39: NCCLSWEEP_TEST_INIT_SLOWDOWN='2@1M': '1M' is not a range LOW-HIGH\n  fix: write a whole factor from 1 to 1000, or a list of FACTOR@LOW-HIGH with sizes (either end open), e.g. 3 or 1@-512K,4"},
    {"range-never-ends.yaml", kNewest,
     "bad-sweeps/range-never-ends.yaml:2:8: invalid size '1M:1G:x1': the factor must be > 1\n  fix: write sizes like 1048576, 64K, 1M, 4G (powers of 1024) or 100MB (powers of 1000)"},
    {"range-too-long.yaml", kNewest,
     "bad-sweeps/range-too-long.yaml:2:8: invalid size '1:1T:+1': it expands to more than 10000 sizes\n  fix: write sizes like 1048576, 64K, 1M, 4G (powers of 1024) or 100MB (powers of 1000)"},
    {"size-overflow.yaml", kNewest,
     "bad-sweeps/size-overflow.yaml:2:8: invalid size '20000000T': the size overflows 64 bits\n  fix: write sizes like 1048576, 64K, 1M, 4G (powers of 1024) or 100MB (powers of 1000)"},
    {"syntax-error.yaml", kNewest,
     "bad-sweeps/syntax-error.yaml:3:6: YAML syntax error: end of sequence flow not found\n  fix: check the brackets, quotes and indentation here"},
    {"unknown-config-field.yaml", kNewest,
     "bad-sweeps/unknown-config-field.yaml:3:3: unknown ncclConfig_t field 'maxctas' (did you mean max_ctas?)\n  fix: config takes snake_case fields: max_ctas, min_ctas, cga_cluster_size, net_name, ... (docs/sweep-files.md); environment variables go under env"},
    {"unknown-dtype.yaml", kNewest,
     "bad-sweeps/unknown-dtype.yaml:2:9: unknown dtype 'complex64'\n  fix: use one of: int8, uint8, int32, uint32, int64, uint64, float16, float32, float64, bfloat16, fp8_e4m3, fp8_e5m2"},
    {"unknown-key.yaml", kNewest,
     "bad-sweeps/unknown-key.yaml:2:1: unknown key 'collective' (did you mean collectives?)\n  fix: sweep files know: name, description, collectives, sizes, dtypes, ops, buffers, launch, buffer_footprint, cache, compute, root, warmup, iters, check, timeout, engine, env, config, include, exclude, zip, baseline, repeats, order, seed, groups, search, allow_unknown_env, allow_unknown_values"},
    {"unknown-nccl-variable.yaml", kNewest,
     "bad-sweeps/unknown-nccl-variable.yaml:3:3: unknown NCCL variable NCCL_IB_QPS_PER_CONECTION (did you mean NCCL_IB_QPS_PER_CONNECTION?)\n  fix: check the name against the NCCL documentation, or set allow_unknown_env: true to pass it through (it then runs in its own processes, as a process-cached setting)"},
    {"wrong-type-env.yaml", kNewest,
     "bad-sweeps/wrong-type-env.yaml:2:6: env must be a map of name -> list of values, not a list\n  fix: write env: {NAME: [v1, v2]} (or NAME: [v1, v2] on indented lines below)"},
    {"wrong-type.yaml", kNewest,
     "bad-sweeps/wrong-type.yaml:2:8: iters must be an integer, not 'many'\n  fix: write e.g. iters: 20"},
    {"zip-unequal.yaml", kNewest,
     "bad-sweeps/zip-unequal.yaml:5:6: zip pairs NCCL_MIN_NCHANNELS (2 values) with NCCL_MAX_NCHANNELS (3 values)\n  fix: zipped axes vary together, so they need equally long value lists"},
};
// clang-format on

}  // namespace

TEST_CASE("each bad sweep file is refused with its exact message") {
  for (const auto& bad : kCorpus) {
    INFO(bad.file);
    CHECK(load_message(bad) == bad.message);
  }
}

TEST_CASE("the corpus covers every file in tests/data/bad-sweeps") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(NCCLSWEEP_SOURCE_DIR) / "tests/data/bad-sweeps")) {
    ++files;
    const std::string name = entry.path().filename().string();
    INFO(name);
    CHECK(std::any_of(std::begin(kCorpus), std::end(kCorpus), [&](const BadSweep& b) { return name == b.file; }));
  }
  CHECK(files == static_cast<int>(std::size(kCorpus)));
}
