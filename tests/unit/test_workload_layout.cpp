#include <map>
#include <set>
#include <vector>

#include "catch_compat.hpp"
#include "workload/layout.hpp"

using namespace ncclsweep;

namespace {

// Ranks sharing world_rank's colour.
std::set<int> members(const ParallelGroup& g, const Layout& l, int world_rank) {
  std::set<int> out;
  for (int r = 0; r < l.world(); ++r) if (color_of(g, l, r) == color_of(g, l, world_rank)) out.insert(r);
  return out;
}

// Coordinates by plain mixed-radix decomposition, innermost first, written out here
// independently of the library.
std::map<std::string, int> coordinates(int rank, const std::vector<std::pair<std::string, int>>& dims) {
  std::map<std::string, int> c;
  for (const auto& [name, size] : dims) {
    c[name] = rank % size;
    rank /= size;
  }
  return c;
}

}  // namespace

TEST_CASE("Megatron's documented example: 16 GPUs, tp 2, pp 4, dp 2") {
  // parallel_state.py docstring: tp groups [g0, g1], ...; pp groups [g0, g4, g8, g12], ...;
  // dp groups [g0, g2], [g1, g3], [g4, g6], ...
  Layout l;
  l.tp = 2;
  l.pp = 4;
  l.dp = 2;
  CHECK(members(group_of(ParallelKind::tp, l), l, 0) == std::set<int>{0, 1});
  CHECK(members(group_of(ParallelKind::pp, l), l, 0) == std::set<int>{0, 4, 8, 12});
  CHECK(members(group_of(ParallelKind::dp, l), l, 0) == std::set<int>{0, 2});
  CHECK(members(group_of(ParallelKind::dp, l), l, 5) == std::set<int>{5, 7});
  CHECK(members(group_of(ParallelKind::pp, l), l, 7) == std::set<int>{3, 7, 11, 15});
}

TEST_CASE("every group of a tp-cp-ep-dp-pp layout holds exactly the ranks that differ only in its dimensions") {
  Layout l;
  l.tp = 2;
  l.cp = 2;
  l.dp = 4;
  l.pp = 2;
  l.ep = 4;  // divides cp*dp = 8
  const std::vector<std::pair<std::string, int>> dense = {{"tp", 2}, {"cp", 2}, {"dp", 4}, {"pp", 2}};
  const std::vector<std::pair<std::string, int>> expert = {{"tp", 2}, {"ep", 4}, {"edp", 2}, {"pp", 2}};
  struct Case {
    ParallelKind kind;
    std::vector<std::pair<std::string, int>> dims;
    std::set<std::string> varying;
  };
  const std::vector<Case> cases = {{ParallelKind::tp, dense, {"tp"}},       {ParallelKind::cp, dense, {"cp"}},
                                   {ParallelKind::dp, dense, {"dp"}},       {ParallelKind::pp, dense, {"pp"}},
                                   {ParallelKind::dp_cp, dense, {"cp", "dp"}}, {ParallelKind::ep, expert, {"ep"}},
                                   {ParallelKind::edp, expert, {"edp"}}};
  for (const auto& c : cases) {
    INFO("group " << name_of(c.kind));
    const auto g = group_of(c.kind, l);
    std::set<int> colours;
    for (int r = 0; r < l.world(); ++r) {
      const int colour = color_of(g, l, r);
      CHECK(colour >= 0);
      CHECK(colour < l.world() / g.size);
      colours.insert(colour);
      std::set<int> expected;
      const auto mine = coordinates(r, c.dims);
      for (int other = 0; other < l.world(); ++other) {
        const auto theirs = coordinates(other, c.dims);
        bool same = true;
        for (const auto& [name, value] : mine) same = same && (c.varying.count(name) || theirs.at(name) == value);
        if (same) expected.insert(other);
      }
      CHECK(members(g, l, r) == expected);
      CHECK(static_cast<int>(expected.size()) == g.size);
    }
    CHECK(static_cast<int>(colours.size()) == l.world() / g.size);
  }
}

TEST_CASE("a layout order with cp and dp apart cannot form the dp-cp group") {
  Layout l;
  l.cp = 2;
  l.dp = 2;
  l.tp = 2;
  l.order = parse_layout_order("cp-tp-dp-pp");
  CHECK(group_of(ParallelKind::tp, l).stride == 2);
  CHECK_THROWS_WITH(group_of(ParallelKind::dp_cp, l), ContainsSubstring("not a strided range"));
}

TEST_CASE("layout orders and sizes are checked") {
  CHECK(format_layout_order(parse_layout_order("tp-cp-ep-dp-pp")) == "tp-cp-ep-dp-pp");
  CHECK_THROWS_WITH(parse_layout_order("tp-xp-dp-pp-cp"), ContainsSubstring("unknown dimension 'xp'"));
  CHECK_THROWS_WITH(parse_layout_order("tp-dp-pp"), ContainsSubstring("lacks cp"));
  Layout l;
  l.tp = 4;
  l.dp = 64;
  const auto text = usage_error_text([&] { validate_layout(l, 512, "w.yaml"); });
  CHECK_THAT(text, ContainsSubstring("w.yaml"));
  CHECK_THAT(text, ContainsSubstring("= 256 is not the rank count 512"));
  l.ep = 3;
  CHECK_THAT(usage_error_text([&] { validate_layout(l, 0, "w.yaml"); }), ContainsSubstring("ep 3 does not divide"));
  CHECK_THROWS_AS(color_of(group_of(ParallelKind::tp, Layout{}), Layout{}, 1), UsageError);
  CHECK_THAT(usage_error_text([] { color_of(ParallelGroup{ParallelKind::unknown, 2, 0}, Layout{}, 0); }),
             ContainsSubstring("no rank layout"));
}
