// NCCL/RCCL logs and PyTorch traces as jobs leave them (tests/data/field, README.md
// there): prefixes before NCCL's own fields, its timestamps, other releases' line
// formats, and traces from before PyTorch recorded collective metadata. Expected counts
// come from the files' text or from parsing them whole, apart from the importers.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "importers/importers.hpp"
#include "test_import_fixtures.hpp"
#include "verify/nccl_log_line.hpp"

using namespace ncclsweep;

namespace {

const std::string kFieldLogs = kFixtures + "/field/nccl-logs";
const std::string kFieldTraces = kFixtures + "/field/torch";

// Every COLL line of the files under `dir` by collective: counted by plain search.
std::map<std::string, long> coll_lines(const std::string& dir) {
  std::map<std::string, long> lines;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string text = read_file(entry.path());
    for (const char* name : {"AllGather", "ReduceScatter", "AllReduce", "Broadcast", "Send"}) {
      lines[name] += occurrences(text, std::string(" ") + name + ": opCount");
    }
  }
  return lines;
}

const char* field_collective_of(const std::string& nccl_name) {
  static const std::map<std::string, const char*> names = {{"AllGather", "all_gather"}, {"ReduceScatter", "reduce_scatter"},
                                                           {"AllReduce", "all_reduce"}, {"Broadcast", "broadcast"},
                                                           {"Send", "sendrecv"}};
  return names.at(nccl_name);
}

double field_calls(const CommProfile& p, const std::string& collective) {
  double calls = 0;
  for (const auto& u : p.uses) {
    if (u.collective->name == collective) calls += u.calls;
  }
  return calls;
}

bool field_noted(const CommProfile& p, const std::string& text) {
  for (const auto& note : p.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("NCCL's host:pid:tid [dev] names the rank wherever it sits on the line") {
  for (const std::string prefix : {"", "[2026-06-01 12:00:01] ", "2026-06-02 08:00:00.007 ", "[1,0]<stderr>:", "0: ", "[0] ",
                                   "(RayTrainWorker pid=615, ip=10.72.7.6) ", "learnfair062:32619:32711 [2] NCCL INFO "}) {
    INFO(prefix);
    const std::string text = prefix + "gpu-7.cluster:4242:4250 [3] NCCL INFO AllGather: opCount 0 count 8";
    const auto line = read_nccl_log_line(text);  // views into text
    REQUIRE(line);
    CHECK(line->origin == "gpu-7.cluster:4242:4250 [3]");
    CHECK(line->message == "AllGather: opCount 0 count 8");
    CHECK(process_of(line->origin) == "gpu-7.cluster:4242 [3]");
  }
  const auto warn = read_nccl_log_line("[2026-06-01 12:00:01] h:1:2 [0] enqueue.cc:1451 NCCL WARN Invalid value x");
  REQUIRE(warn);
  CHECK(warn->origin == "h:1:2 [0]");
  CHECK(warn->level == "WARN");
  CHECK(warn->message == "Invalid value x");
  // No origin at all: the line still reads, its rank is whoever wrote the file.
  const auto bare = read_nccl_log_line("NCCL INFO AllGather: opCount 0 count 8");
  REQUIRE(bare);
  CHECK(bare->origin.empty());
}

TEST_CASE("field NCCL and RCCL logs: ranks are NCCL's own, whatever precedes them") {
  struct Case {
    const char* dir;
    std::size_t ranks;
  };
  for (const Case c : {Case{"timestamps-2.27", 2}, Case{"timestamps-subseconds", 2}, Case{"ray", 4}, Case{"tag-output", 2},
                       Case{"srun-label", 4}, Case{"interleaved", 2}, Case{"rccl", 2}, Case{"bracketed", 1}}) {
    INFO(c.dir);
    const std::string dir = kFieldLogs + "/" + c.dir;
    const auto profile = import_nccl_log(dir + "/*.log", 0);
    CHECK(field_noted(profile, std::to_string(c.ranks) + " ranks seen"));
    for (const auto& [nccl_name, lines] : coll_lines(dir)) {
      if (lines == 0) continue;
      INFO(nccl_name);
      // Every rank made each call: calls per rank are the lines over the ranks.
      CHECK(field_calls(profile, field_collective_of(nccl_name)) == Approx(static_cast<double>(lines) / c.ranks));
    }
  }
  const auto rccl = import_nccl_log(kFieldLogs + "/rccl/rccl.log", 0);
  CHECK(field_noted(rccl, "skipped 2 AllToAllv lines (not a collective ncclsweep measures)"));
  CHECK(field_noted(rccl, "skipped 2 Recv lines"));
}

TEST_CASE("field NCCL logs: a line format that names no collective is refused at that line, naming the token") {
  const std::string file = kFieldLogs + "/nccl-2.3/nccl.log";
  const std::string text = usage_error_text([&] { import_nccl_log(file, 0); });
  CHECK_THAT(text, ContainsSubstring(file + ":2: a COLL line names no collective: it starts with 'opCount'"));
  CHECK_THAT(text, ContainsSubstring("NCCL 2.4 or later"));
  const std::string unknown = temp_file("unknown-coll.log",
                                        "h:1:2 [0] NCCL INFO Frobnicate: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 "
                                        "root 0 comm 0x3 [nranks=2] stream 0x4\n");
  CHECK_THAT(usage_error_text([&] { import_nccl_log(unknown, 0); }),
             ContainsSubstring(unknown + ":1: no COLL line ncclsweep can read in 1 file(s) matching '" + unknown +
                               "': the token 'Frobnicate' before 'opCount' (1 lines) is not a collective NCCL or RCCL logs"));
  const std::string no_ranks = temp_file("no-nranks.log",
                                         "h:1:2 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 "
                                         "op 0 root 0 comm 0x3 [nranks=x] stream 0x4\n");
  CHECK_THAT(usage_error_text([&] { import_nccl_log(no_ranks, 0); }),
             ContainsSubstring("the AllReduce COLL line has '[nranks=x]' where '[nranks=N]' goes"));
}

TEST_CASE("NCCL logs: a COLL line cut short is refused, unless it ends its file") {
  const std::string whole = read_file(kFieldLogs + "/timestamps-2.27/nccl.gpu-a.4100.log");
  const std::string last_line = whole.substr(whole.rfind('\n', whole.size() - 2) + 1);
  const std::string cut = whole.substr(0, whole.size() - last_line.size()) + last_line.substr(0, last_line.find(" datatype"));
  const auto killed = import_nccl_log(temp_file("killed.log", cut), 0);
  CHECK(field_noted(killed, "skipped the last line of"));
  CHECK(field_noted(killed, "has no 'datatype' field"));
  const std::string middle = cut + "\n" + last_line;
  const std::string path = temp_file("cut-in-the-middle.log", middle);
  const auto lines = occurrences(middle, "\n");  // the cut line is the one before the last
  CHECK_THAT(usage_error_text([&] { import_nccl_log(path, 0); }),
             ContainsSubstring(path + ":" + std::to_string(lines - 1) + ": the AllReduce COLL line has no 'datatype' field"));
}

TEST_CASE("field PyTorch traces with the older nccl:* annotations import, saying the metadata is the older kind") {
  for (const char* pattern : {"/pt2.0-annotations/rank*.pt.trace.json", "/pt1.13-cpu-op/worker0.pt.trace.json"}) {
    INFO(pattern);
    const auto profile = import_torch_trace(kFieldTraces + pattern, 0);
    // Count the annotations apart: each tensor of a CPU-side nccl:* annotation is one call.
    std::map<std::string, double> calls;
    std::set<std::string> steps;
    long files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(kFieldTraces + pattern).parent_path())) {
      ++files;
      const auto doc = nlohmann::json::parse(read_file(entry.path()));
      for (const auto& e : doc.at("traceEvents")) {
        const std::string name = e.at("name");
        if (name.rfind("ProfilerStep#", 0) == 0) steps.insert(entry.path().string() + name);
        if (name.rfind("nccl:", 0) != 0 || e.at("cat") == "gpu_user_annotation" || name.rfind("nccl:recv", 0) == 0) continue;
        calls[name.substr(5, name.find(' ') - 5)] += static_cast<double>(e.at("args").at("Input Dims").size());
      }
    }
    REQUIRE(files > 0);
    const double per_rank_step = 1.0 / static_cast<double>(steps.size());  // steps counted over every file, as ranks x steps
    CHECK(field_calls(profile, "all_gather") == Approx(calls["_all_gather_base"] * per_rank_step));
    CHECK(field_calls(profile, "reduce_scatter") == Approx(calls["_reduce_scatter_base"] * per_rank_step));
    CHECK(field_calls(profile, "all_reduce") == Approx((calls["all_reduce"] + calls["all_reduce_coalesced"]) * per_rank_step));
    CHECK(field_calls(profile, "sendrecv") > 0);
    for (const auto& u : profile.uses) {
      CHECK(u.group.size == 2);  // distributedInfo's world_size
      if (u.collective->name == "all_gather") {
        CHECK(u.bytes == 6298112ull * 2 * 2);  // one rank's bf16 share x 2 ranks
        CHECK(u.dtype == &data_type("bfloat16"));
      }
      if (u.collective->name == "reduce_scatter") CHECK(u.bytes == 12596224ull * 4);  // the whole float input
    }
    CHECK(field_noted(profile, "the collective metadata is the older kind"));
    CHECK(field_noted(profile, "iterations counted from ProfilerStep#N events"));
  }
}

TEST_CASE("field PyTorch traces that cannot be read are refused naming the real reason") {
  struct Case {
    const char* dir;
    const char* says;
    bool asks_record_shapes;
  };
  for (const Case c : {Case{"no-shapes", "carry no 'Input Dims' or 'Input type': the trace was profiled without shapes", true},
                       Case{"shapes-but-bare", "although the trace recorded shapes (record_shapes: 1)", false},
                       Case{"no-world-size", "no distributedInfo world_size", false},
                       Case{"gloo", "ran on another backend", false},
                       Case{"no-comm", "the traced steps made no NCCL collective call", false}}) {
    INFO(c.dir);
    const std::string text = usage_error_text([&] { import_torch_trace(kFieldTraces + "/" + c.dir + "/*.json", 0); });
    CHECK_THAT(text, ContainsSubstring(c.says));
    CHECK((text.find("record_shapes=True") != std::string::npos) == c.asks_record_shapes);
  }
}
