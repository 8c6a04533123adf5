// nccl-tests' text table as a Side. Columns are found from the header line, so the
// root column (absent before 2.x), cputime, per-iteration (-I) and timestamp columns,
// "error" vs "#wrong" and N/A values all read; rows are taken exactly as printed.
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

#include "compare/side_readers.hpp"
#include "core/collective.hpp"
#include "core/errors.hpp"

namespace ncclsweep {
namespace {

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool is_unsigned_integer(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// Strict: "13x072" is no count (std::stoull alone would read 13).
std::uint64_t parse_unsigned(const std::string& token) {
  if (!is_unsigned_integer(token)) throw std::invalid_argument(token);
  return std::stoull(token);
}

std::optional<double> parse_number(const std::string& token) {
  if (token == "N/A" || token == "nan" || token == "-nan") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(token.c_str(), &end);
  if (end == token.c_str() || *end != '\0') return std::nullopt;
  return v;
}

// Half of the last printed digit: "245.62" -> 0.005, "1234.5" -> 0.05, "1235" -> 0.5.
double resolution_of(const std::string& token) {
  const auto dot = token.find('.');
  if (token.find_first_of("eE") != std::string::npos) return std::abs(std::strtod(token.c_str(), nullptr)) * 0.05;
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(token.size() - dot - 1);
  return 0.5 * std::pow(10.0, -decimals);
}

// Where one placement's figures sit in a data row.
struct PlacementColumns {
  int time = -1, algbw = -1, busbw = -1, wrong = -1;
};

struct TableLayout {
  int size = -1, count = -1, type = -1, redop = -1, root = -1;
  PlacementColumns out_of_place, in_place;
  int min_words = 0;  // a data row shorter than this is cut off
};

// The header line: "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...".
std::optional<TableLayout> layout_from_header(const std::vector<std::string>& words) {
  TableLayout t;
  std::vector<int> times;
  std::vector<int> algbw, busbw, wrong;
  for (int i = 0; i < static_cast<int>(words.size()); ++i) {
    const std::string& w = words[i];
    const int col = i - 1;  // words[0] is "#"
    if (w == "size") t.size = col;
    else if (w == "count") t.count = col;
    else if (w == "type") t.type = col;
    else if (w == "redop") t.redop = col;
    else if (w == "root") t.root = col;
    else if (w == "time" || w == "cputime") times.push_back(col);
    else if (w == "algbw") algbw.push_back(col);
    else if (w == "busbw") busbw.push_back(col);
    else if (w == "#wrong") wrong.push_back(col);
    else if (w == "error") wrong.push_back(-1);  // old releases: max error, not a count
  }
  if (t.size != 0 || t.count < 0 || t.type < 0 || busbw.empty() || times.size() != busbw.size()) return std::nullopt;
  t.out_of_place = {times[0], algbw.size() > 0 ? algbw[0] : -1, busbw[0], wrong.size() > 0 ? wrong[0] : -1};
  if (busbw.size() > 1) t.in_place = {times[1], algbw.size() > 1 ? algbw[1] : -1, busbw[1], wrong.size() > 1 ? wrong[1] : -1};
  for (int c : {t.out_of_place.busbw, t.out_of_place.wrong, t.in_place.busbw, t.in_place.wrong}) t.min_words = std::max(t.min_words, c + 1);
  return t;
}

struct TestBlock {
  std::string collective;
  std::set<int> ranks;
  std::set<std::string> hosts, gpus;
  int threads_x_gpus = 1;
  std::optional<Bytes> max_bytes;  // the header's maxBytes: every buffer's allocation
  std::optional<TableLayout> layout;
  int first_line = 0;
  bool concluded = false;
};

class TextImporter {
 public:
  explicit TextImporter(const std::string& path) { side_.identity = {"nccl-tests text", path, "", 0, 0, "", "", "", "nccl-tests"}; }

  void line(const std::string& text, int number) {
    const std::vector<std::string> words = split_words(text);
    if (words.empty()) return;
    static const std::regex kVersion(R"(^# nccl-tests version (\S+).*nccl-library=(\d+))");
    static const std::regex kStart(R"(^# Collective test starting: (\S+))");
    static const std::regex kThreads(R"(^# nThread (\d+) nGpus (\d+))");
    static const std::regex kReducedMax(R"(^# Reducing maxBytes to (\d+))");
    static const std::regex kRank(R"(^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s+(.*\S))");
    std::smatch m;
    if (std::regex_search(text, m, kVersion)) {
      side_.identity.nccl_version = nccl_version_string(m[2]);
    } else if (std::regex_search(text, m, kStart)) {
      close_block(number);
      block_ = TestBlock{};
      block_->collective = collective_from_program(m[1]);
      block_->first_line = number;
      if (side_.identity.name.empty()) side_.identity.name = m[1];
    } else if (std::regex_search(text, m, kThreads)) {
      if (!block_ || block_->concluded) start_unnamed_block(number);
      block_->threads_x_gpus = std::stoi(m[1]) * std::stoi(m[2]);
      static const std::regex kMaxBytes(R"(maxBytes (\d+))");
      if (std::smatch max; std::regex_search(text, max, kMaxBytes)) block_->max_bytes = std::stoull(max[1]);
    } else if (block_ && std::regex_search(text, m, kReducedMax)) {
      block_->max_bytes = std::stoull(m[1]);  // nccl-tests allocated less than -e asked
    } else if (block_ && std::regex_search(text, m, kRank)) {
      block_->ranks.insert(std::stoi(m[1]));
      block_->hosts.insert(m[2]);
      block_->gpus.insert(m[3]);
    } else if (block_ && words[0] == "#" && words.size() > 5 && words[1] == "size") {
      block_->layout = layout_from_header(words);
      if (!block_->layout) throw error(number, "unrecognised nccl-tests table header");
    } else if (text.starts_with("# Collective test concluded") || text.starts_with("# Avg bus bandwidth")) {
      if (block_) block_->concluded = true;
    } else if (block_ && block_->layout && !block_->concluded && is_unsigned_integer(words[0])) {
      try {
        data_row(words, number);
      } catch (const std::logic_error&) {  // std::stoull on a non-number or an overflow
        throw error(number, "malformed nccl-tests row: '" + text + "'");
      }
    }
    last_line_ = number;
  }

  Side finish() {
    close_block(last_line_);
    if (side_.rows.empty()) {
      throw UsageError(side_.identity.path + " holds no nccl-tests result rows",
                       "give nccl-tests output (the text table with '# Collective test starting:' and its rows), "
                       "an nccl-tests -J JSON file or an ncclsweep results directory");
    }
    normalise_rows(side_);
    return std::move(side_);
  }

 private:
  UsageError error(int number, const std::string& what) const {
    return UsageError(what, "give complete nccl-tests output (rerun it, or cut the file after the last complete test)",
                      SourcePosition{side_.identity.path, number, 0});
  }

  // Releases before 2.x print no "Collective test starting" line: the collective can
  // only come from the file name (all_reduce_perf.txt).
  void start_unnamed_block(int number) {
    close_block(number);
    block_ = TestBlock{};
    block_->first_line = number;
    const std::string file = std::filesystem::path(side_.identity.path).filename().string();
    std::string_view best;
    for (const auto& kind : all_collectives()) {
      if (file.find(kind.name) != std::string::npos && kind.name.size() > best.size()) best = kind.name;
    }
    block_->collective = best.empty() ? "unknown" : std::string(best);
    side_.notes.push_back("no collective name in the output; " +
                          (best.empty() ? std::string("calling it 'unknown'") : "took '" + block_->collective + "' from the file name"));
  }

  void data_row(const std::vector<std::string>& words, int number) {
    const TableLayout& t = *block_->layout;
    if (static_cast<int>(words.size()) < t.min_words) {
      throw error(number, "truncated nccl-tests row: " + std::to_string(words.size()) + " columns, expected at least " +
                              std::to_string(t.min_words));
    }
    auto add = [&](const PlacementColumns& c, const char* placement) {
      if (c.busbw < 0) return;
      const auto busbw = parse_number(words[c.busbw]);
      if (!busbw) return;  // N/A: nothing measured
      SideRow row;
      row.key = {block_->collective, canonical_dtype(words[t.type]), t.redop >= 0 ? words[t.redop] : "none",
                 parse_unsigned(words[t.size]), placement, ""};
      row.count = parse_unsigned(words[t.count]);
      row.root = t.root >= 0 ? parse_number(words[t.root]).value_or(-1) : -1;
      row.time_us = parse_number(words[c.time]).value_or(0);
      row.algbw_gbps = c.algbw >= 0 ? parse_number(words[c.algbw]).value_or(0) : 0;
      row.busbw_gbps = *busbw;
      row.busbw_resolution_gbps = resolution_of(words[c.busbw]);
      // nccl-tests allocates once at maxBytes and rotates each iteration through it, and
      // never flushes a cache: footprint "largest" at maxBytes, warm.
      if (block_->max_bytes) {
        row.footprint_bytes = block_->max_bytes;
        row.footprint_mode = "largest";
      }
      row.cache = "warm";
      if (c.wrong >= 0) {
        if (const auto w = parse_number(words[c.wrong])) row.wrong = static_cast<std::uint64_t>(*w);
      }
      side_.rows.push_back(row);
    };
    add(t.out_of_place, "out_of_place");
    add(t.in_place, "in_place");
  }

  void close_block(int number) {
    if (!block_) return;
    if (!block_->concluded) {
      throw error(number, "truncated nccl-tests output: the " + block_->collective + " test started at line " +
                              std::to_string(block_->first_line) + " never printed '# Collective test concluded'");
    }
    SideIdentity& id = side_.identity;
    const int ranks = block_->ranks.empty() ? block_->threads_x_gpus : static_cast<int>(block_->ranks.size());
    if (id.ranks != 0 && id.ranks != ranks) side_.notes.push_back("tests in this file ran on different rank counts");
    id.ranks = std::max(id.ranks, ranks);
    id.hosts = std::max(id.hosts, static_cast<int>(block_->hosts.size()));
    std::string gpus;
    for (const auto& g : block_->gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    if (block_->gpus.size() > 1) gpus = "mixed: " + gpus;
    if (id.gpu.empty()) id.gpu = gpus;
    block_.reset();
  }

  Side side_;
  std::optional<TestBlock> block_;
  int last_line_ = 0;
};

}  // namespace

Side side_from_nccl_tests_text(const std::string& text, const std::string& path) {
  TextImporter importer(path);
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    importer.line(line, ++number);
  }
  return importer.finish();
}

}  // namespace ncclsweep
