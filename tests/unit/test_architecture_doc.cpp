// docs/architecture.md's "One sweep point, file by file" stays true: every source file it
// names exists, every function it names beside a file is defined in that file, and the
// path crosses at most 20 files.
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "catch_compat.hpp"
#include "read_file.hpp"

namespace {

// The section from its heading to the next "## ".
std::string doc_section(const std::string& doc, const std::string& heading) {
  const auto start = doc.find("\n## " + heading + "\n");
  if (start == std::string::npos) return "";
  const auto end = doc.find("\n## ", start + 1);
  return doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("architecture.md's path of one sweep point names files and functions that exist") {
  const std::filesystem::path source = NCCLSWEEP_SOURCE_DIR;
  const std::string path = doc_section(read_file(source / "docs/architecture.md"), "One sweep point, file by file");
  REQUIRE_FALSE(path.empty());
  // `folder/file.cpp`, and where it is followed by (`name` ...), the function it holds.
  const std::regex file_mention(R"(`([a-z_]+/[a-z_/]+\.(?:cpp|hpp))`(?:\s*\(`([a-z_]+)`)?)");
  std::set<std::string> files;
  int functions = 0;
  const std::string flat = std::regex_replace(path, std::regex(R"(\s+)"), " ");
  for (auto it = std::sregex_iterator(flat.begin(), flat.end(), file_mention); it != std::sregex_iterator(); ++it) {
    const std::string file = (*it)[1];
    INFO(file);
    REQUIRE(std::filesystem::is_regular_file(source / "src" / file));
    files.insert(file);
    if ((*it)[2].matched) {
      const std::string function = (*it)[2];
      INFO(function);
      CHECK(read_file(source / "src" / file).find(" " + function + "(") != std::string::npos);
      ++functions;
    }
  }
  CHECK(files.size() >= 15);  // the whole path, not a fragment of it
  CHECK(files.size() <= 20);  // and a path a newcomer can follow: merge files before adding one
  CHECK(functions >= 6);
}
