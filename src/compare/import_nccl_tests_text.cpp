// nccl-tests' text table as a Side. Columns are found from the header line, so the
// root column (absent before 2.x), cputime, per-iteration (-I) and timestamp columns,
// "error" vs "#wrong" and N/A values all read; rows are taken exactly as printed.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

#include "compare/side_readers.hpp"
#include "core/checked_number.hpp"
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

// The 1-based column where each word of `line` starts (as split_words splits it).
std::vector<int> word_columns(const std::string& line) {
  std::vector<int> columns;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (!std::isspace(static_cast<unsigned char>(line[i])) && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) {
      columns.push_back(static_cast<int>(i) + 1);
    }
  }
  return columns;
}

bool is_unsigned_integer(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// nccl-tests prints N/A where it measured nothing (a placement it skips).
bool not_measured(const std::string& token) { return token == "N/A"; }

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
  explicit TextImporter(const std::string& path) { side_.identity = {SideSource::nccl_tests_text, path, "", 0, 0, "", "", "", std::nullopt}; }

  void line(const std::string& text, int number) {
    const std::vector<std::string> words = split_words(text);
    if (words.empty()) return;
    text_ = &text;
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
      const SourcePosition where{side_.identity.path, number, 0};
      block_->threads_x_gpus = static_cast<int>(checked_integer(m.str(1), 1, 1 << 16, "nThread", where) *
                                                checked_integer(m.str(2), 1, 1 << 10, "nGpus", where));
      static const std::regex kMaxBytes(R"(maxBytes (\d+))");
      if (std::smatch max; std::regex_search(text, max, kMaxBytes)) {
        block_->max_bytes = checked_integer(max.str(1), 0, std::int64_t{1} << 62, "maxBytes", where);
      }
    } else if (block_ && std::regex_search(text, m, kReducedMax)) {
      // nccl-tests allocated less than -e asked
      block_->max_bytes = checked_integer(m.str(1), 0, std::int64_t{1} << 62, "maxBytes", {side_.identity.path, number, 0});
    } else if (block_ && std::regex_search(text, m, kRank)) {
      block_->ranks.insert(static_cast<int>(checked_integer(m.str(1), 0, 1 << 24, "Rank", {side_.identity.path, number, 0})));
      block_->hosts.insert(m[2]);
      block_->gpus.insert(m[3]);
    } else if (block_ && words[0] == "#" && words.size() > 5 && words[1] == "size") {
      block_->layout = layout_from_header(words);
      if (!block_->layout) throw error(number, "unrecognised nccl-tests table header");
    } else if (text.starts_with("# Collective test concluded") || text.starts_with("# Avg bus bandwidth")) {
      if (block_) block_->concluded = true;
    } else if (block_ && block_->layout && !block_->concluded && words[0][0] != '#') {
      const bool nccl_line = text.find(" NCCL ") != std::string::npos;  // NCCL's own log interleaves the table
      if (is_unsigned_integer(words[0]) || (!nccl_line && static_cast<int>(words.size()) >= block_->layout->min_words)) {
        data_row(words, number);  // a row in the table's shape is read, or refused at its bad cell
      } else if (!nccl_line) {
        side_.notes.push_back("line " + std::to_string(number) + " inside the " + block_->collective +
                              " table is not a result row: skipped");
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
  UsageError error(int number, const std::string& what, int column = 0) const {
    return UsageError(what, "give complete nccl-tests output (rerun it, or cut the file after the last complete test)",
                      SourcePosition{side_.identity.path, number, column});
  }

  // A cell of the current row that must be the number its column holds; refused at
  // file:line:column otherwise (never read as 0, which would compare as a result).
  double number_cell(const std::vector<std::string>& words, int col, const char* column_name, int number, double lo,
                     double hi, bool integer) const {
    const std::string& token = words[static_cast<std::size_t>(col)];
    const auto value = integer ? [&]() -> std::optional<double> {
      const auto i = parse_integer_text(token);
      return i ? std::optional<double>(static_cast<double>(*i)) : std::nullopt;
    }()
                               : parse_finite_text(token);
    if (!value || *value < lo || *value > hi) {
      const auto columns = word_columns(*text_);
      throw error(number,
                  std::string("the ") + column_name + " cell '" + token + "' is not " +
                      (integer ? "a whole number" : "a finite number") + (lo >= 0 ? " at or above 0" : "") +
                      ": not a row nccl-tests prints",
                  columns[static_cast<std::size_t>(col)]);
    }
    return *value;
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
    constexpr double kMaxBytes = 4.6e18, kMaxFigure = 1e15;  // 2^62 bytes; no time or bandwidth comes near 1e15
    const auto size = static_cast<Bytes>(number_cell(words, t.size, "size", number, 0, kMaxBytes, true));
    const auto count = static_cast<std::uint64_t>(number_cell(words, t.count, "count", number, 0, kMaxBytes, true));
    const int root = t.root >= 0 ? static_cast<int>(number_cell(words, t.root, "root", number, -1, 1 << 24, true)) : -1;
    auto add = [&](const PlacementColumns& c, Placement place) {
      const std::string_view placement = name_of(place);
      if (c.busbw < 0) return;
      if (not_measured(words[c.busbw])) {
        side_.notes.push_back("line " + std::to_string(number) + ": " + std::string(placement) + " busbw N/A (not measured): skipped");
        return;
      }
      std::string skipped;
      const auto key = nccl_tests_key(block_->collective, words[t.type], t.redop >= 0 ? words[t.redop] : "none", size,
                                      place, skipped);
      if (!key) {
        note_skipped_row(side_, skipped);
        return;
      }
      SideRow row;
      row.key = *key;
      row.count = count;
      row.root = root;
      row.time_us = number_cell(words, c.time, "time", number, 0, kMaxFigure, false);
      row.algbw_gbps = c.algbw >= 0 ? number_cell(words, c.algbw, "algbw", number, 0, kMaxFigure, false) : 0;
      row.busbw_gbps = number_cell(words, c.busbw, "busbw", number, 0, kMaxFigure, false);
      row.busbw_resolution_gbps = resolution_of(words[c.busbw]);
      // nccl-tests allocates once at maxBytes and rotates each iteration through it, and
      // never flushes a cache: footprint "largest" at maxBytes, warm.
      if (block_->max_bytes) {
        row.footprint_bytes = block_->max_bytes;
        row.footprint = BufferFootprint{FootprintMode::largest, 0};
      }
      row.cache = CacheState::warm;
      if (c.wrong >= 0 && !not_measured(words[c.wrong])) {
        row.wrong = static_cast<std::uint64_t>(number_cell(words, c.wrong, "#wrong", number, 0, kMaxBytes, true));
      }
      side_.rows.push_back(row);
    };
    add(t.out_of_place, Placement::out_of_place);
    add(t.in_place, Placement::in_place);
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
  const std::string* text_ = nullptr;  // the line being read, for a cell's column
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
