// Per-node views of a run's ranks: the node summaries, and the terminal header that uses
// them past 16 ranks.
#include <cstdio>
#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "report/terminal_table.hpp"
#include "results/node_map.hpp"

using namespace ncclsweep;

namespace {

RankEntry rank_on(int rank, const std::string& host, int gpu, const std::string& visible) {
  RankEntry r;
  r.rank = rank;
  r.host = host;
  r.gpu_index = gpu;
  r.pci_bus_id = gpu < 0 ? "" : host + ":0000:0" + std::to_string(gpu) + ":00.0";
  if (!visible.empty()) r.environment["CUDA_VISIBLE_DEVICES"] = visible;
  return r;
}

// Two hosts, ranks interleaved (round-robin placement), one GPU per rank as
// srun --gpus-per-task=1 sets it.
std::vector<RankEntry> interleaved(int per_host) {
  std::vector<RankEntry> ranks;
  for (int i = 0; i < 2 * per_host; ++i) {
    ranks.push_back(rank_on(i, i % 2 ? "b" : "a", 0, std::to_string(i / 2)));
  }
  return ranks;
}

std::string header_of(const RunDocument& run) {
  std::ostringstream text;
  make_terminal_table(text)->begin(run);
  return text.str();
}

}  // namespace

TEST_CASE("node summaries group ranks by host in order of first appearance") {
  const auto nodes = node_summaries(interleaved(3));
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].host == "a");
  CHECK(nodes[0].ranks == std::vector<int>{0, 2, 4});
  CHECK(nodes[1].ranks == std::vector<int>{1, 3, 5});
  // Every rank of a host drives visible GPU 0 of its own CUDA_VISIBLE_DEVICES: one bus id per
  // host in this fixture, three distinct visible sets.
  CHECK(nodes[0].gpus.size() == 1);
  CHECK(nodes[0].visible_devices == std::vector<std::string>{"0", "1", "2"});
  CHECK(node_summary_line(nodes[1]) == "b: ranks 1,3,5 (3), 1 GPU(s), CUDA_VISIBLE_DEVICES 0 | 1 | 2");
}

TEST_CASE("a node summary without GPUs or CUDA_VISIBLE_DEVICES says so, and abbreviates many values") {
  std::vector<RankEntry> ranks = {rank_on(0, "x", -1, ""), rank_on(1, "x", -1, "")};
  CHECK(node_summary_line(node_summaries(ranks)[0]) == "x: ranks 0-1 (2), no GPU, CUDA_VISIBLE_DEVICES unset");
  const auto many = node_summaries(interleaved(8));
  CHECK_THAT(node_summary_line(many[0]), ContainsSubstring("0 | 1 | 2 | 3 | ... (8 values)"));
}

TEST_CASE("the terminal header lists ranks up to 16 and nodes beyond") {
  RunDocument run;
  run.ranks = interleaved(8);  // 16 ranks
  CHECK_THAT(header_of(run), ContainsSubstring("#  Rank  15 on b"));
  run.ranks = interleaved(9);  // 18 ranks
  const std::string text = header_of(run);
  CHECK_THAT(text, !ContainsSubstring("Rank  15"));
  CHECK_THAT(text, ContainsSubstring("#  a: ranks 0,2,4,6,8,10,12,14,16 (9)"));
  CHECK_THAT(text, ContainsSubstring("#  b: ranks 1,3,5,7,9,11,13,15,17 (9)"));
}
