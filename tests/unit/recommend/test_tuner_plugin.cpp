// libncclsweep-tuner.so as NCCL uses it, on the CPU: dlopen, the v5 and v4 symbols, rule
// files through NCCL_TUNER_CONFIG_FILE, and hand-made cost tables.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "tuner/nccl_tuner_abi.hpp"
#include "scratch.hpp"

namespace {

using namespace ncclsweep::tuner;
namespace fs = std::filesystem;

// NCCL's logger is a plain function pointer: the lines it receives land here.
std::vector<std::string>& logged() {
  static std::vector<std::string> lines;
  return lines;
}

void capture(abi::LogLevel level, unsigned long, const char*, int, const char* format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  logged().push_back((level == abi::kLogWarn ? "WARN " : "INFO ") + std::string(text));
}

int count_logged(const std::string& part) {
  int n = 0;
  for (const auto& line : logged()) n += line.find(part) != std::string::npos;
  return n;
}

// The plugin, loaded as NCCL loads it; closed at the end.
class LoadedPlugin {
 public:
  LoadedPlugin() : handle_(dlopen(NCCLSWEEP_TUNER_PLUGIN, RTLD_NOW | RTLD_LOCAL)) {
    INFO(dlerror_text());
    REQUIRE(handle_);
    v5 = static_cast<const abi::TunerV5*>(dlsym(handle_, "ncclTunerPlugin_v5"));
    v4 = static_cast<const abi::TunerV4*>(dlsym(handle_, "ncclTunerPlugin_v4"));
  }
  ~LoadedPlugin() { dlclose(handle_); }
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
  const abi::TunerV5* v5 = nullptr;
  const abi::TunerV4* v4 = nullptr;

 private:
  static std::string dlerror_text() {
    const char* e = dlerror();
    return e ? e : "";
  }
  void* handle_;
};

// A rule file for this test, named by NCCL_TUNER_CONFIG_FILE while it lives.
class RuleFileFixture {
 public:
  explicit RuleFileFixture(const std::string& text, bool create = true)
      : path_(ncclsweep::testing::scratch_root() / "tuner.conf") {
    fs::remove(path_);
    if (create) std::ofstream(path_) << text;
    setenv("NCCL_TUNER_CONFIG_FILE", path_.c_str(), 1);
    logged().clear();
  }
  ~RuleFileFixture() {
    unsetenv("NCCL_TUNER_CONFIG_FILE");
    fs::remove(path_);
  }
  RuleFileFixture(const RuleFileFixture&) = delete;
  RuleFileFixture& operator=(const RuleFileFixture&) = delete;
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// NCCL's float[7][3] cost table, every entry usable at cost 10 unless set otherwise.
struct CostTable {
  float cost[abi::kAlgorithms][abi::kProtocols];
  CostTable() {
    for (auto& row : cost)
      for (float& c : row) c = 10.0f;
  }
  float** as_nccl_passes_it() { return reinterpret_cast<float**>(cost); }
  int changed() const {
    int n = 0;
    for (const auto& row : cost)
      for (float c : row) n += c != 10.0f;
    return n;
  }
};

constexpr int kRing = 1, kTree = 0, kLL = 0, kLL128 = 1, kSimple = 2;

}  // namespace

TEST_CASE("the plugin exports the v5 and v4 interfaces under its name", "[tuner-plugin]") {
  LoadedPlugin plugin;
  REQUIRE(plugin.v5);
  REQUIRE(plugin.v4);
  CHECK(std::string(plugin.v5->name) == "ncclsweep");
  CHECK(std::string(plugin.v4->name) == "ncclsweep");
}

TEST_CASE("a matching rule makes its algorithm and protocol the cheapest and sets channels", "[tuner-plugin]") {
  LoadedPlugin plugin;
  RuleFileFixture rules("# from recommend\nallgather,1048576,16777216,ring,ll,8,1,2,-1,-1\nallreduce,0,4096,tree,ll128,-1,-1,-1\n");
  void* context = nullptr;
  abi::NvlDomainInfoV5 nvl{1, 2, 2};
  abi::TunerConstantsV5 constants{};
  REQUIRE(plugin.v5->init(&context, 7, 2, 1, capture, &nvl, &constants) == abi::kSuccess);
  CHECK(count_logged("TUNER/ncclsweep: loaded 2 rule(s) from " + rules.path() + " for 1 node(s), 2 rank(s)") == 1);
  CHECK(count_logged("rule at line 2: allgather,1048576,16777216,ring,ll,8,1,2,-1,-1") == 1);

  CostTable table;
  int channels = 0;
  REQUIRE(plugin.v5->getCollInfo(context, abi::kAllGather, 4 << 20, 1, table.as_nccl_passes_it(), 7, 3, 0, &channels) ==
          abi::kSuccess);
  CHECK(table.cost[kRing][kLL] == 0.0f);
  CHECK(table.changed() == 1);
  CHECK(channels == 8);

  // The rule without channels leaves NCCL's count alone.
  CostTable small;
  channels = 0;
  plugin.v5->getCollInfo(context, abi::kAllReduce, 1024, 1, small.as_nccl_passes_it(), 7, 3, 0, &channels);
  CHECK(small.cost[kTree][kLL128] == 0.0f);
  CHECK(channels == 0);

  // Outside the size range, or another collective: untouched.
  CostTable other;
  channels = 0;
  plugin.v5->getCollInfo(context, abi::kAllGather, 32 << 20, 1, other.as_nccl_passes_it(), 7, 3, 0, &channels);
  plugin.v5->getCollInfo(context, abi::kReduceScatter, 4 << 20, 1, other.as_nccl_passes_it(), 7, 3, 0, &channels);
  CHECK(other.changed() == 0);
  CHECK(channels == 0);
  CHECK(plugin.v5->finalize(context) == abi::kSuccess);
}

TEST_CASE("each rule is logged once when it first applies, however many calls it serves", "[tuner-plugin]") {
  LoadedPlugin plugin;
  RuleFileFixture rules("allgather,0,100000000,ring,simple,-1,-1,-1\n");
  void* context = nullptr;
  REQUIRE(plugin.v4->init(2, 1, capture, &context) == abi::kSuccess);
  for (int call = 0; call < 5; ++call) {
    CostTable table;
    int channels = 0;
    plugin.v4->getCollInfo(context, abi::kAllGather, 1 << 20, 1, table.as_nccl_passes_it(), 7, 3, 0, &channels);
    CHECK(table.cost[kRing][kSimple] == 0.0f);
  }
  CHECK(count_logged("rule at line 1 applied to allgather 1048576 B: ring/simple, channels NCCL's") == 1);
  plugin.v4->destroy(context);
}

TEST_CASE("a rule never overrides an entry NCCL marked unusable, or a shape it was not for", "[tuner-plugin]") {
  LoadedPlugin plugin;
  RuleFileFixture rules("allgather,0,100000000,ring,ll,-1,1,2\n");
  void* four_ranks = nullptr;
  REQUIRE(plugin.v5->init(&four_ranks, 1, 4, 1, capture, nullptr, nullptr) == abi::kSuccess);
  CostTable table;
  int channels = 0;
  plugin.v5->getCollInfo(four_ranks, abi::kAllGather, 1 << 20, 1, table.as_nccl_passes_it(), 7, 3, 0, &channels);
  CHECK(table.changed() == 0);  // the rule is for 2 ranks
  plugin.v5->finalize(four_ranks);

  void* two_ranks = nullptr;
  REQUIRE(plugin.v5->init(&two_ranks, 2, 2, 1, capture, nullptr, nullptr) == abi::kSuccess);
  CostTable ignored;
  ignored.cost[kRing][kLL] = abi::kIgnoredCost;
  plugin.v5->getCollInfo(two_ranks, abi::kAllGather, 1 << 20, 1, ignored.as_nccl_passes_it(), 7, 3, 0, &channels);
  CHECK(ignored.cost[kRing][kLL] == abi::kIgnoredCost);
  CHECK(ignored.changed() == 1);  // only the entry NCCL set to ignore differs from 10
  CHECK(count_logged("NCCL cannot use ring/ll for it") == 1);
  plugin.v5->finalize(two_ranks);
}

TEST_CASE("bad lines are logged with their line number and skipped; good lines still apply", "[tuner-plugin]") {
  LoadedPlugin plugin;
  RuleFileFixture rules("allgather,0,100,ring,ll,-1,-1,-1\nallgather,0,100,rign,ll,-1,-1,-1\nnot,a,rule\n");
  void* context = nullptr;
  REQUIRE(plugin.v5->init(&context, 1, 2, 1, capture, nullptr, nullptr) == abi::kSuccess);
  CHECK(count_logged("WARN TUNER/ncclsweep: " + rules.path() + ":2: line skipped: unknown algorithm 'rign'") == 1);
  CHECK(count_logged(rules.path() + ":3: line skipped: 3 fields") == 1);
  CHECK(count_logged("loaded 1 rule(s)") == 1);
  CostTable table;
  int channels = 0;
  plugin.v5->getCollInfo(context, abi::kAllGather, 64, 1, table.as_nccl_passes_it(), 7, 3, 0, &channels);
  CHECK(table.cost[kRing][kLL] == 0.0f);
  plugin.v5->finalize(context);
}

TEST_CASE("an empty or missing rule file leaves every choice to NCCL", "[tuner-plugin]") {
  LoadedPlugin plugin;
  for (const bool create : {true, false}) {
    RuleFileFixture rules("", create);
    void* context = nullptr;
    REQUIRE(plugin.v5->init(&context, 1, 2, 1, capture, nullptr, nullptr) == abi::kSuccess);
    CHECK(count_logged(create ? "loaded 0 rule(s)" : "no rule file " + rules.path()) == 1);
    CostTable table;
    int channels = 0;
    CHECK(plugin.v5->getCollInfo(context, abi::kAllReduce, 1 << 20, 1, table.as_nccl_passes_it(), 7, 3, 0, &channels) ==
          abi::kSuccess);
    CHECK(table.changed() == 0);
    CHECK(channels == 0);
    plugin.v5->finalize(context);
  }
  // No logger at all (NCCL may pass none): still no crash.
  RuleFileFixture rules("allgather,0,100,ring,ll,-1,-1,-1\n");
  void* context = nullptr;
  REQUIRE(plugin.v4->init(2, 1, nullptr, &context) == abi::kSuccess);
  CostTable table;
  int channels = 0;
  plugin.v4->getCollInfo(context, abi::kAllGather, 64, 1, table.as_nccl_passes_it(), 7, 3, 0, &channels);
  CHECK(table.cost[kRing][kLL] == 0.0f);
  plugin.v4->destroy(context);
}
