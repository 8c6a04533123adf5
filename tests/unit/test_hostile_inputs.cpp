// Hostile and broken inputs, refused as classes (docs/reliability.md): files that are not
// regular files, inputs past their cap (read or inflated), numbers that are not numbers,
// YAML that yaml-cpp would read otherwise than it looks, and links planted where
// results are written.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch_compat.hpp"
#include "read_file.hpp"
#include "compare/side_readers.hpp"
#include "core/checked_number.hpp"
#include "core/input_file.hpp"
#include "core/output_file.hpp"
#include "importers/importers.hpp"
#include "importers/input_files.hpp"
#include "spec/sweep.hpp"
#include "spec/value_kind.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the build's temporary space, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (ncclsweep::testing::scratch_root() / "hostile-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

void gzip_to(const fs::path& p, const std::string& text) {
  gzFile out = gzopen(p.c_str(), "wb");
  REQUIRE(out != nullptr);
  for (std::size_t at = 0; at < text.size(); at += 1 << 20) {
    const auto n = static_cast<unsigned>(std::min<std::size_t>(1 << 20, text.size() - at));
    REQUIRE(gzwrite(out, text.data() + at, n) == static_cast<int>(n));
  }
  gzclose(out);
}

}  // namespace

TEST_CASE("an input that is not a regular file is refused before a byte is read", "[hostile]") {
  TempDir dir;
  const fs::path fifo = dir.path / "sweep.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // no writer: reading it would block forever
  CHECK_THROWS_WITH(read_input_file(fifo.string(), kSettingsFileInput), ContainsSubstring("is a FIFO"));
  CHECK_THROWS_WITH(read_input_file("/dev/zero", kSettingsFileInput), ContainsSubstring("is a character device"));
  CHECK_THROWS_WITH(read_input_file(dir.path.string(), kResultsFileInput), ContainsSubstring("is a directory"));
  CHECK_THROWS_WITH(read_text_file(fifo.string()), ContainsSubstring("is a FIFO"));
  CHECK_THROWS_WITH(import_torch_trace("/dev/urandom", 0), ContainsSubstring("is a character device"));
  CHECK_THROWS_WITH(import_nccl_log(fifo.string(), 0), ContainsSubstring("is a FIFO"));
  // A link the user gives is followed, to what it names.
  const fs::path link = dir.path / "link.yaml";
  fs::create_symlink(fifo, link);
  CHECK_THROWS_WITH(read_input_file(link.string(), kSettingsFileInput), ContainsSubstring("is a FIFO"));
  spit(dir.path / "real.yaml", "name: x\n");
  fs::remove(link);
  fs::create_symlink(dir.path / "real.yaml", link);
  CHECK(read_input_file(link.string(), kSettingsFileInput) == "name: x\n");
}

TEST_CASE("an input past its cap is refused, and a gzip member that inflates past it stops there", "[hostile]") {
  TempDir dir;
  constexpr InputKind kSmall{"test input", kMebibyte};
  spit(dir.path / "big.txt", std::string(kMebibyte + 1, 'x'));
  CHECK_THROWS_WITH(read_input_file((dir.path / "big.txt").string(), kSmall), ContainsSubstring("is larger than 1 MiB"));
  // 64 MiB of one byte compresses to about 64 KiB: read whole it would be 64x the cap.
  gzip_to(dir.path / "bomb.gz", std::string(64 * kMebibyte, 'a'));
  REQUIRE(fs::file_size(dir.path / "bomb.gz") < kMebibyte);
  CHECK_THROWS_WITH(read_text_file((dir.path / "bomb.gz").string(), kSmall), ContainsSubstring("expands beyond 1 MiB"));
  std::size_t lines = 0;
  constexpr InputKind kLarge{"test input", 128 * kMebibyte};
  CHECK_THROWS_WITH(for_each_text_line((dir.path / "bomb.gz").string(), kLarge, [&](std::string_view, int) { ++lines; }),
                    ContainsSubstring("line 1 is longer than"));
  CHECK(lines == 0);
}

TEST_CASE("--max-input-size raises a cap for a real input that large, never lowers one", "[hostile]") {
  TempDir dir;
  constexpr InputKind kSmall{"test input", kMebibyte};
  spit(dir.path / "big.txt", std::string(kMebibyte + 1, 'x'));
  gzip_to(dir.path / "big.gz", std::string(2 * kMebibyte, 'a'));
  const std::string big = (dir.path / "big.txt").string(), gz = (dir.path / "big.gz").string();
  CHECK_THAT(usage_error_text([&] { read_input_file(big, kSmall); }), ContainsSubstring("pass --max-input-size"));
  // main() sets the variable from the flag; each rank of a launch parses its own.
  setenv(kMaxInputSizeVariable, "4M", 1);
  CHECK(read_input_file(big, kSmall).size() == kMebibyte + 1);
  CHECK(read_text_file(gz, kSmall).size() == 2 * kMebibyte);
  setenv(kMaxInputSizeVariable, "1K", 1);  // below the cap: the cap stays
  CHECK(input_cap(kSmall) == kMebibyte);
  setenv(kMaxInputSizeVariable, "lots", 1);
  CHECK_THROWS_WITH(input_cap(kSmall), ContainsSubstring("NCCLSWEEP_MAX_INPUT_SIZE=lots"));
  unsetenv(kMaxInputSizeVariable);
  CHECK_THROWS_WITH(read_text_file(gz, kSmall), ContainsSubstring("expands beyond 1 MiB"));
}

TEST_CASE("a torch trace is streamed: millions of tiny events, and the one call among them, counted", "[hostile]") {
  TempDir dir;
  std::string trace = R"({"traceEvents": [)";
  for (int i = 0; i < 100000; ++i) trace += R"({"ph":"X"},)";
  trace += R"({"name": "record_param_comms", "cat": "cpu_op", "args": {"Collective name": "allreduce",
              "In msg nelems": 1024, "Out msg nelems": 1024, "dtype": "Float", "Group size": 8,
              "ignored": {"deep": [1, 2, {"x": "y"}]}}}], "other": {"traceEvents": 1}})";
  gzip_to(dir.path / "trace.json.gz", trace);
  const CommProfile profile = import_torch_trace((dir.path / "trace.json.gz").string(), 1);
  REQUIRE(profile.uses.size() == 1);
  CHECK(profile.uses[0].collective == &collective("all_reduce"));
  CHECK(profile.uses[0].bytes == 4096);
  CHECK(profile.uses[0].group.size == 8);
  spit(dir.path / "cut.json", trace.substr(0, trace.size() / 2));
  CHECK_THROWS_WITH(import_torch_trace((dir.path / "cut.json").string(), 1), ContainsSubstring("not a complete JSON trace"));
  spit(dir.path / "array.json", "[1, 2]");
  CHECK_THROWS_WITH(import_torch_trace((dir.path / "array.json").string(), 1), ContainsSubstring("without a traceEvents array"));
}

TEST_CASE("one checked number parser: whole text, finite, in range", "[hostile]") {
  CHECK(parse_integer_text("4096") == 4096);
  CHECK(parse_integer_text("-1") == -1);
  for (const char* bad : {"", "0x100000", "13x", " 8", "+8", "99999999999999999999", "1e3"}) {
    INFO(bad);
    CHECK_FALSE(parse_integer_text(bad));
  }
  CHECK(parse_finite_text("1.5") == 1.5);
  CHECK(parse_finite_text("-2e3") == -2000);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e999", "0x10", "1.5x", "abc", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_finite_text(bad));
  }
  CHECK_THROWS_WITH(checked_number("nan", 0, 10, "--threshold"), ContainsSubstring("--threshold 'nan' is not a number from 0 to 10"));
  CHECK_THROWS_WITH(checked_integer("-3", 0, 7, "rank", {"f.txt", 4, 9}), ContainsSubstring("rank '-3'"));
  CHECK_THROWS_WITH(checked_value(std::nan(""), 0, 1e15, "busbw"), ContainsSubstring("busbw NaN"));
  CHECK_THROWS_WITH(checked_value(-1, 0, 1e15, "busbw"), ContainsSubstring("busbw -1 is not"));
}

TEST_CASE("an nccl-tests cell that is not its column's number is refused at file:line:column", "[hostile]") {
  const std::string head =
      "# Collective test starting: all_reduce_perf\n"
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n";
  const std::string tail = "# Avg bus bandwidth    : 1\n";
  const auto side = [&](const std::string& row) { return side_from_nccl_tests_text(head + row + tail, "t.txt"); };
  CHECK(side("  1024  256  float  sum  -1  10.0  0.10  0.19  0  9.0  0.11  0.21  0\n").rows.size() == 2);
  try {
    side("  1024  256  float  sum  -1  abc  0.10  0.19  0  9.0  0.11  0.21  0\n");
    FAIL("a time of 'abc' was read");
  } catch (const UsageError& e) {
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 30);
    CHECK_THAT(e.what(), ContainsSubstring("time cell 'abc'"));
  }
  CHECK_THROWS_WITH(side("  0x100000  256  float  sum  -1  1.0  0.10  0.19  0  9.0  0.11  0.21  0\n"),
                    ContainsSubstring("size cell '0x100000'"));
  CHECK_THROWS_WITH(side("  1024  256  float  sum  -1  1.0  0.10  nan  0  9.0  0.11  0.21  0\n"),
                    ContainsSubstring("busbw cell 'nan'"));
  CHECK_THROWS_WITH(side("  1024  256  float  sum  -1  1.0  0.10  -5  0  9.0  0.11  0.21  0\n"),
                    ContainsSubstring("busbw cell '-5'"));
  // N/A is nothing measured: the row is skipped, with a note that names its line.
  const Side partial = side("  1024  256  float  sum  -1  10.0  0.10  0.19  0  N/A  N/A  N/A  N/A\n");
  CHECK(partial.rows.size() == 1);
  bool noted = false;
  for (const auto& note : partial.notes) noted = noted || note.find("line 3") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("values NCCL reads alike are the same value", "[hostile]") {
  const ValueKind protocols = name_kind("protocol", {}, false);
  CHECK(nccl_reads_alike(protocols, "LL", "ll"));
  CHECK_FALSE(nccl_reads_alike(protocols, "LL", "LL128"));
  CHECK_FALSE(nccl_reads_alike(name_kind("level", {}, true), "LOC", "loc"));
  CHECK(nccl_reads_alike(integer_kind(0, 64), "8", "0x8"));
  CHECK_FALSE(nccl_reads_alike(text_kind(), "a", "A"));
}

TEST_CASE("a message keeps going past a NUL or control character, shown escaped", "[hostile]") {
  const UsageError e(std::string("value 'a\0b\x1b[31m' end", 20), "fix \x07");
  CHECK(std::string(e.what()) == "value 'a\\x00b\\x1b[31m' end");
  CHECK(e.fix() == "fix \\x07");
}

TEST_CASE("nothing is written through a link planted in a results directory", "[hostile]") {
  TempDir dir;
  const fs::path victim = dir.path / "victim.txt", results = dir.path / "results";
  spit(victim, "precious\n");
  fs::create_directory(results);
  fs::create_symlink(victim, results / "run.json");
  fs::create_symlink(victim, results / "run.json.tmp");
  // Refused by name before anything is written...
  CHECK_THROWS_WITH(refuse_planted_links(results, {"records.jsonl", "run.json"}),
                    ContainsSubstring((results / "run.json").string() + " is a symbolic link"));
  // ...and, should one appear after that check, the write replaces the link itself.
  REQUIRE(replace_file(results / "run.json", "{}\n") == 0);
  CHECK(read_file(victim) == "precious\n");
  CHECK_FALSE(fs::is_symlink(results / "run.json"));
  CHECK(read_file(results / "run.json") == "{}\n");
  CHECK_FALSE(fs::exists(results / "run.json.tmp"));
  fs::create_symlink(victim, results / "records.jsonl");
  CHECK(open_no_follow(results / "records.jsonl", O_WRONLY | O_APPEND) == -1);
  CHECK(errno == ELOOP);
  CHECK(read_file(victim) == "precious\n");
}

TEST_CASE("YAML that would be read otherwise than it looks is refused where it starts", "[hostile]") {
  const SweepContext context{};
  const auto refusal = [&](const std::string& text) -> UsageError {
    try {
      load_sweep_text(text, "s.yaml", context);
    } catch (const UsageError& e) {
      return e;
    }
    FAIL("accepted: " << text);
    return UsageError("");
  };
  const UsageError two = refusal("collectives: [all_reduce]\n---\ncollectives: [all_gather]\n");
  CHECK_THAT(two.what(), ContainsSubstring("more than one YAML document"));
  CHECK(two.where().line == 3);
  const UsageError merge = refusal("base: &b {NCCL_PROTO: [LL]}\nenv:\n  <<: *b\n");
  CHECK_THAT(merge.what(), ContainsSubstring("merge keys"));
  CHECK(merge.where().line == 3);
  const UsageError alike = refusal("env:\n  NCCL_PROTO: [LL, Simple, ll]\n");
  CHECK_THAT(alike.what(), ContainsSubstring("'LL' and 'll'"));
  CHECK(alike.where().line == 2);
  const UsageError nul = refusal("env:\n  NCCL_PROTO: [\"L\\0L\"]\n");
  CHECK_THAT(nul.what(), ContainsSubstring("\\x00"));
}
