// records.jsonl's one writer (results/results_directory.hpp), as run, locate and soak use it:
// whole lines or nothing, a cut back on resume, a full disk and a vanished directory.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "results/results_directory.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = ncclsweep::testing::scratch_root() / "journal" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The testing aid's variable for the life of one journal's construction.
struct WriteBudget {
  explicit WriteBudget(const std::string& bytes) { setenv("NCCLSWEEP_INJECT_WRITE_FAILURE_AFTER", bytes.c_str(), 1); }
  ~WriteBudget() { unsetenv("NCCLSWEEP_INJECT_WRITE_FAILURE_AFTER"); }
};

// What `call` threw as an E; "" when it threw nothing (another type fails the test).
template <class E, class F>
std::string thrown(F&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a journal appends each value as one JSON line and counts the complete bytes") {
  const fs::path dir = fresh_dir("append");
  RecordsJournal journal = RecordsJournal::create(dir, "go on");
  journal.append_values(std::vector<int>{1, 22});
  journal.append_values(std::vector<std::string>{"x"});
  CHECK(contents(dir / "records.jsonl") == "1\n22\n\"x\"\n");
  CHECK(journal.complete_bytes() == 9);
  CHECK(journal.appends() == 2);
}

TEST_CASE("a new journal refuses a directory that already holds records, and a planted link") {
  const fs::path dir = fresh_dir("refuse");
  std::ofstream(dir / "records.jsonl") << "{}\n";
  CHECK_THAT(thrown<UsageError>([&] { RecordsJournal::create(dir, ""); }), ContainsSubstring("already holds a records.jsonl"));
  CHECK(contents(dir / "records.jsonl") == "{}\n");  // an earlier launch's lines stay
  const fs::path linked = fresh_dir("linked");
  fs::create_symlink(dir / "records.jsonl", linked / "records.jsonl");
  CHECK_THAT(thrown<UsageError>([&] { RecordsJournal::resume(linked, 0, ""); }), ContainsSubstring("symbolic link"));
  CHECK(contents(dir / "records.jsonl") == "{}\n");
}

TEST_CASE("a resumed journal is cut back to the complete lines before it appends") {
  const fs::path dir = fresh_dir("resume");
  std::ofstream(dir / "records.jsonl") << "1\n2\n{\"torn";
  RecordsJournal journal = RecordsJournal::resume(dir, 4, "");
  journal.append_values(std::vector<int>{3});
  CHECK(contents(dir / "records.jsonl") == "1\n2\n3\n");
}

TEST_CASE("a write the disk cuts short is cut back to the last whole line and says what to do next") {
  const fs::path dir = fresh_dir("full");
  std::optional<RecordsJournal> journal;
  {
    const WriteBudget budget("10");
    journal.emplace(RecordsJournal::create(dir, "make space, then go on with --resume " + dir.string()));
  }
  journal->append_values(std::vector<int>{1234, 5678});  // 10 bytes: exactly the budget
  try {
    journal->append_values(std::vector<int>{9});
    FAIL("the write past the budget succeeded");
  } catch (const RuntimeFailure& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("No space left on device"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("every complete record before it is kept"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("--resume " + dir.string()));
  }
  CHECK(contents(dir / "records.jsonl") == "1234\n5678\n");
  CHECK(journal->complete_bytes() == 10);
}

TEST_CASE("a journal whose directory was moved away refuses to write on, naming the directory") {
  const fs::path dir = fresh_dir("moved");
  RecordsJournal journal = RecordsJournal::create(dir, "");
  journal.append_values(std::vector<int>{1});
  CHECK_FALSE(journal.gone());
  fs::rename(dir, dir.string() + "-away");
  CHECK(journal.gone());
  CHECK_THAT(thrown<RuntimeFailure>([&] { journal.append_values(std::vector<int>{2}); }),
             ContainsSubstring("was removed or moved during the run"));
  CHECK(contents(dir.string() + "-away/records.jsonl") == "1\n");
  fs::remove_all(dir.string() + "-away");
}

TEST_CASE("an unused journal's empty file is removed, a used one's is kept") {
  const fs::path unused = fresh_dir("unused");
  RecordsJournal first = RecordsJournal::create(unused, "");
  first.remove_if_unused();
  CHECK_FALSE(fs::exists(unused / "records.jsonl"));
  const fs::path used = fresh_dir("used");
  RecordsJournal second = RecordsJournal::create(used, "");
  second.append_values(std::vector<int>{7});
  second.remove_if_unused();
  CHECK(contents(used / "records.jsonl") == "7\n");
}
