// nccl-tests' text output as a Side, in every layout nccl-tests has printed since 1.0:
// columns come from the header line, so the root column (printed only by rooted
// programs before 2.13), cputime, the per-iteration (-I) and timestamp columns, an
// `error` or `res` column instead of `#wrong`, a blank redop cell and N/A all read; rows
// are taken exactly as printed. Whatever a launcher puts before each line (mpirun
// --tag-output's `[1,0]<stdout>:`, srun --label's `0: `, a timestamp) is passed over: a
// line is known by what nccl-tests wrote in it, wherever that starts.
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "compare/nccl_tests_collective.hpp"
#include "compare/side_readers.hpp"
#include "core/checked_number.hpp"
#include "core/collective.hpp"
#include "core/errors.hpp"

namespace ncclsweep {
namespace {

// The words of a line and the 1-based column where each starts.
struct SplitLine {
  std::vector<std::string> words;
  std::vector<int> columns;
};

SplitLine split_line(const std::string& line) {
  SplitLine out;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    out.words.push_back(line.substr(start, i - start));
    out.columns.push_back(static_cast<int>(start) + 1);
  }
  return out;
}

bool is_whole_number(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

bool starts_with_letter(const std::string& s) { return !s.empty() && std::isalpha(static_cast<unsigned char>(s[0])); }

// NCCL's own log, interleaved with the table when NCCL_DEBUG goes to the same stream.
bool is_nccl_log_line(const std::string& line) {
  for (const char* tag : {"NCCL INFO", "NCCL WARN", "NCCL TRACE", "NCCL CALL", "NCCL ABORT"}) {
    if (line.find(tag) != std::string::npos) return true;
  }
  return false;
}

// nccl-tests' own words when a call fails: "Test NCCL failure common.cu:393 '...'",
// "Test CUDA failure ...", and " .. host pid 2000: Test failure common.cu:..." after them.
bool is_test_failure(const std::string& line) {
  for (const char* words : {"Test NCCL failure", "Test CUDA failure", "Test failure"}) {
    if (line.find(words) != std::string::npos) return true;
  }
  return false;
}

std::string trimmed(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t");
  const std::size_t last = line.find_last_not_of(" \t");
  return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

// nccl-tests prints N/A where it measured or checked nothing.
bool not_measured(const std::string& token) { return token == "N/A"; }

// Where one placement's figures sit among a row's figure cells.
struct PlacementColumns {
  int time = -1, algbw = -1, busbw = -1, wrong = -1;
  bool wrong_is_count = true;  // "#wrong"; older releases' "error" / "res" is a maximum error
};

struct TableLayout {
  bool has_redop = false, has_root = false;
  PlacementColumns out_of_place, in_place;
  int figure_cells = 0;     // cells a complete row has after its key cells, up to the last one read
  int row_words = 0;        // words a whole row has (a timestamp cell is two)
  double time_scale = 1;    // nccl-tests 1.x printed milliseconds
};

// The header: "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...";
// 1.x: "#  bytes  N  type  op  [root]  time  algbw  busbw  res  ...".
std::optional<TableLayout> layout_from_header(const std::vector<std::string>& words) {
  TableLayout t;
  std::size_t i = 1;  // words[0] is "#"
  auto take = [&](std::initializer_list<const char*> names) {
    if (i < words.size() && std::find_if(names.begin(), names.end(), [&](const char* n) { return words[i] == n; }) != names.end()) {
      ++i;
      return true;
    }
    return false;
  };
  const bool old_names = i < words.size() && words[i] == "bytes";
  if (!take({"size", "bytes"}) || !take({"count", "N"}) || !take({"type"})) return std::nullopt;
  t.has_redop = take({"redop", "op"});
  t.has_root = take({"root"});
  if (old_names) t.time_scale = 1000;
  PlacementColumns* group = nullptr;
  int cell = 0;
  for (; i < words.size(); ++i, ++cell) {
    const std::string& w = words[i];
    if (w == "time" || w == "cputime") {
      if (group == &t.in_place) return std::nullopt;
      group = group ? &t.in_place : &t.out_of_place;
      group->time = cell;
    } else if (!group) {
      return std::nullopt;
    } else if (w == "algbw") {
      group->algbw = cell;
    } else if (w == "busbw") {
      group->busbw = cell;
    } else if (w == "#wrong" || w == "error" || w == "res") {
      group->wrong = cell;
      group->wrong_is_count = w == "#wrong";
    }
  }
  if (t.out_of_place.busbw < 0 || (group == &t.in_place && t.in_place.busbw < 0)) return std::nullopt;
  t.row_words = static_cast<int>(words.size()) - 1 + (words.back() == "timestamp" ? 1 : 0);
  for (const PlacementColumns* c : {&t.out_of_place, &t.in_place}) {
    for (const int cell_index : {c->time, c->algbw, c->busbw, c->wrong}) t.figure_cells = std::max(t.figure_cells, cell_index + 1);
  }
  return t;
}

// Where a result row starts on a line: its size, count and type cells, after whatever
// a launcher printed before them.
std::optional<std::size_t> row_start(const std::vector<std::string>& w, const TableLayout& t) {
  for (std::size_t i = 0; i + 2 < w.size(); ++i) {
    if (is_whole_number(w[i]) && is_whole_number(w[i + 1]) && starts_with_letter(w[i + 2])) return i;
  }
  // A row with a damaged size, count or type cell is still a row, refused at that cell:
  // it starts where a whole row's words would (one later for a blank redop cell).
  const auto numeric = [&](std::size_t i) {
    if (i >= w.size()) return false;
    const std::string& s = w[i];
    const std::size_t digit = s[0] == '-' ? 1 : 0;
    return digit < s.size() && std::isdigit(static_cast<unsigned char>(s[digit]));
  };
  for (const int blank : {0, 1}) {
    const long i = static_cast<long>(w.size()) - t.row_words + blank;
    if (i >= 0 && numeric(static_cast<std::size_t>(i))) return static_cast<std::size_t>(i);
  }
  if (!w.empty() && is_whole_number(w[0])) return 0;
  return std::nullopt;
}

// One placement's figures of a row, as read.
struct PlacementFigures {
  double time_us = 0, algbw = 0, busbw = 0;
  std::string busbw_text;
  std::optional<std::uint64_t> wrong;
};

struct RawRow {
  int line = 0;
  Bytes size = 0;
  std::uint64_t count = 0;
  std::string type, redop;
  int root = -1;
  std::optional<PlacementFigures> out_of_place, in_place;
};

struct CutRow {
  std::string cells;
  int line = 0;
};

struct TestBlock {
  std::vector<std::string> named;  // programs the output names for this test
  bool named_by_start_line = false;
  std::set<int> ranks;
  std::set<std::string> groups, hosts, gpus;  // groups: the Rank lines' colours (NCCL_TESTS_SPLIT)
  int threads_x_gpus = 1;
  std::optional<Bytes> max_bytes;  // the header's maxBytes: every buffer's allocation
  std::optional<TableLayout> layout;
  TableEvidence evidence;
  std::vector<RawRow> rows;
  std::optional<std::string> average_text;
  int first_line = 0;
  bool concluded = false;
  bool row_lost = false;  // a row cut by NCCL's log never continued
  LaunchMode launch = LaunchMode::stream;  // -G (graph: N above 0) or -z 1 (Blocking Enabled)
};

class TextImporter {
 public:
  explicit TextImporter(const std::string& path) { side_.identity = {SideSource::nccl_tests_text, path, "", 0, 0, "", "", "", std::nullopt}; }

  void line(const std::string& text, int number) {
    last_line_ = number;
    const SplitLine split = split_line(text);
    if (split.words.empty()) return;
    // NCCL's own lines: only its version is of use (releases before 2.17 print none).
    static const std::regex kNcclVersion(R"(NCCL version (\d+\.\d+\.\d+))");
    std::smatch version;
    if (side_.identity.nccl_version.empty() && std::regex_search(text, version, kNcclVersion)) {
      side_.identity.nccl_version = version[1];
    }
    if (is_nccl_log_line(text)) {
      if (in_table()) hold_cut_row(text, number);
      return;
    }
    if (in_table() && cut_row_) {
      // The figures of a row NCCL's log cut: the row's first cells come before them.
      const CutRow cut = *std::exchange(cut_row_, std::nullopt);
      const std::string joined = cut.cells + " " + text;
      const SplitLine whole = split_line(joined);
      if (const auto start = row_start(whole.words, *block_->layout);
          start && joined.find('#') == std::string::npos && whole.words.size() - *start >= min_row_words()) {
        side_.notes.push_back("line " + std::to_string(cut.line) + ": a row cut by NCCL's log, its figures on line " +
                              std::to_string(number) + ": read joined");
        data_row(whole, *start, number);
        return;
      }
      lose_cut_row(cut);
    }
    if (in_table()) {
      if (const auto start = row_start(split.words, *block_->layout);
          start && text.find('#') == std::string::npos) {
        data_row(split, *start, number);
        return;
      }
    }
    static const std::regex kVersion(R"(# nccl-tests version (\S+).*nccl-library=(\d+))");
    static const std::regex kStart(R"(#\s*Collective test starting:\s*(\S+))");
    static const std::regex kThreads(R"((?:^|[\s#:>])nThread (\d+) nGpus (\d+))");
    static const std::regex kReducedMax(R"(# Reducing maxBytes to (\d+))");
    static const std::regex kRank(
        R"(#\s+Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?(?:Pid\s+\d+\s+)?on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s+(.*\S))");
    static const std::regex kAverage(R"((?:^|[\s#:>])Avg bus bandwidth\s*:\s*(\S+))");
    std::smatch m;
    const std::size_t hash = text.find('#');
    const SplitLine comment = hash == std::string::npos ? SplitLine{} : split_line(text.substr(hash));
    const SourcePosition where{side_.identity.path, number, 0};
    if (std::regex_search(text, m, kVersion)) {
      side_.identity.nccl_version = nccl_version_string(m[2]);  // the library the test ran with
    } else if (std::regex_search(text, m, kStart)) {
      close_block(number);
      start_block(number);
      const auto named = programs_named_in(m.str(1));
      if (!named.empty()) block_->named = named;
      block_->named_by_start_line = !named.empty();
      if (side_.identity.name.empty()) side_.identity.name = m[1];
    } else if (std::regex_search(text, m, kThreads)) {
      // Inside a table whose test never concluded (before 2.17 no start line tells a new
      // test), start_block refuses that test.
      if (!block_ || block_->concluded || block_->layout) start_block(number);
      block_->threads_x_gpus = static_cast<int>(checked_integer(m.str(1), 1, 1 << 16, "nThread", where) *
                                                checked_integer(m.str(2), 1, 1 << 10, "nGpus", where));
      static const std::regex kGraph(R"(graph: (\d+))");
      if (std::smatch graph; std::regex_search(text, graph, kGraph) && graph.str(1) != "0") {
        block_->launch = LaunchMode::graph;
      }
      static const std::regex kMaxBytes(R"(maxBytes (\d+))");
      if (std::smatch max; std::regex_search(text, max, kMaxBytes)) {
        block_->max_bytes = checked_integer(max.str(1), 0, std::int64_t{1} << 62, "maxBytes", where);
      }
    } else if (block_ && std::regex_search(text, m, kReducedMax)) {
      // nccl-tests allocated less than -e asked
      block_->max_bytes = checked_integer(m.str(1), 0, std::int64_t{1} << 62, "maxBytes", where);
    } else if (block_ && std::regex_search(text, m, kRank)) {
      block_->ranks.insert(static_cast<int>(checked_integer(m.str(1), 0, 1 << 24, "Rank", where)));
      if (m[2].matched) block_->groups.insert(m.str(2));
      block_->hosts.insert(m[3]);
      block_->gpus.insert(m[4]);
    } else if (comment.words.size() > 5 && comment.words[0] == "#" &&
               (comment.words[1] == "size" || comment.words[1] == "bytes")) {
      if (!block_ || block_->concluded || block_->layout) start_block(number);
      block_->layout = layout_from_header(comment.words);
      if (!block_->layout) throw error(number, "unrecognised nccl-tests table header");
      block_->evidence.set_columns(block_->layout->has_redop, block_->layout->has_root);
    } else if (block_ && text.find("# Blocking Enabled") != std::string::npos) {
      block_->launch = LaunchMode::blocking;
    } else if (std::regex_search(text, m, kAverage)) {
      if (block_) {
        block_->concluded = true;
        block_->average_text = m[1];
      }
    } else if (text.find("Collective test concluded") != std::string::npos) {
      if (block_) block_->concluded = true;
    } else if (block_ && !block_->concluded && is_test_failure(text)) {
      throw error(number, "nccl-tests failed here: the test started at line " + std::to_string(block_->first_line) +
                              " never finished ('" + trimmed(text) + "')");
    } else if (text.find("Out of bounds values") != std::string::npos) {
      // the check's summary, before the average
    } else if (in_table() && hash == std::string::npos) {
      side_.notes.push_back("line " + std::to_string(number) + " inside a table is not a result row: skipped");
    } else {
      note_programs_named(text);
    }
  }

  Side finish() {
    close_block(last_line_);
    if (side_.rows.empty()) {
      std::string skipped;
      for (const auto& note : side_.notes) {
        if (note.starts_with("rows skipped: ")) skipped += (skipped.empty() ? "" : "; ") + note.substr(14);
      }
      if (!skipped.empty()) {
        throw UsageError(side_.identity.path + " holds no nccl-tests rows ncclsweep can compare (" + skipped + ")",
                         "give the output of an nccl-tests program that measures a collective ncclsweep measures");
      }
      throw UsageError(side_.identity.path + " holds no nccl-tests result rows",
                       "give nccl-tests output (the text a *_perf program prints: its header line and result rows), "
                       "an nccl-tests -J JSON file or an ncclsweep results directory");
    }
    normalise_rows(side_);
    return std::move(side_);
  }

 private:
  bool in_table() const { return block_ && block_->layout && !block_->concluded; }

  // The cells a row has before its figures: size, count, type, redop, root.
  std::size_t min_row_words() const {
    const TableLayout& t = *block_->layout;
    return 3 + (t.has_redop ? 1 : 0) + (t.has_root ? 1 : 0) + static_cast<std::size_t>(t.figure_cells);
  }

  // nccl-tests prints a row's first cells before its timed call and the figures after it;
  // NCCL logging to the same stream in between glues its line to them, the root cell
  // (printed last before the call) to the log's "host:pid:tid [dev] NCCL INFO".
  void hold_cut_row(const std::string& text, int number) {
    if (!block_->layout->has_root) return;
    static const std::regex kGluedRoot(R"((-?\d+)\S*:\d+:\d+\s+\[\d+\]\s+NCCL )");
    std::smatch m;
    if (!std::regex_search(text, m, kGluedRoot) || m.position(0) == 0) return;
    std::string cells = text.substr(0, static_cast<std::size_t>(m.position(0))) + m.str(1);
    const SplitLine split = split_line(cells);
    if (!row_start(split.words, *block_->layout) || cells.find('#') != std::string::npos) return;
    if (cut_row_) lose_cut_row(*cut_row_);
    cut_row_ = CutRow{std::move(cells), number};
  }

  void lose_cut_row(const CutRow& cut) {
    side_.notes.push_back("line " + std::to_string(cut.line) + ": a row cut by NCCL's log whose figures never followed: skipped");
    block_->row_lost = true;
  }

  UsageError error(int number, const std::string& what, int column = 0) const {
    return UsageError(what, "give complete nccl-tests output (rerun it, or cut the file after the last complete test)",
                      SourcePosition{side_.identity.path, number, column});
  }

  void start_block(int number) {
    close_block(number);
    block_ = TestBlock{};
    block_->first_line = number;
    block_->named = std::move(pending_programs_);
    pending_programs_.clear();
  }

  // A command line or a script's words before a test may name its program; what a
  // test's own '# Collective test starting' line names wins.
  void note_programs_named(const std::string& text) {
    const bool preamble = block_ && !block_->concluded && !block_->layout;
    if (preamble && block_->named_by_start_line) return;
    auto& list = preamble ? block_->named : pending_programs_;
    for (const auto& name : programs_named_in(text)) {
      if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    }
  }

  // A cell of the current row that must be the number its column holds; refused at
  // file:line:column otherwise (never read as 0, which would compare as a result).
  double number_cell(const SplitLine& line, std::size_t index, const char* column_name, int number, double lo, double hi,
                     bool integer) const {
    const std::string& token = line.words[index];
    const auto value = integer ? [&]() -> std::optional<double> {
      const auto i = parse_integer_text(token);
      return i ? std::optional<double>(static_cast<double>(*i)) : std::nullopt;
    }()
                               : parse_finite_text(token);
    if (!value || *value < lo || *value > hi) {
      throw error(number,
                  std::string("the ") + column_name + " cell '" + token + "' is not " +
                      (integer ? "a whole number" : "a finite number") + (lo >= 0 ? " at or above 0" : "") +
                      ": not a row nccl-tests prints",
                  line.columns[index]);
    }
    return *value;
  }

  void data_row(const SplitLine& line, std::size_t start, int number) {
    const TableLayout& t = *block_->layout;
    const std::size_t n = line.words.size();
    constexpr double kMaxBytes = 4.6e18, kMaxFigure = 1e15;  // 2^62 bytes; no time or bandwidth comes near 1e15
    auto truncated = [&](std::size_t cells) {
      return error(number, "truncated nccl-tests row: " + std::to_string(cells) + " columns, expected at least " +
                               std::to_string(3 + (t.has_redop ? 1 : 0) + (t.has_root ? 1 : 0) + t.figure_cells));
    };
    if (n - start < 3) throw truncated(n - start);
    RawRow row;
    row.line = number;
    row.size = static_cast<Bytes>(number_cell(line, start, "size", number, 0, kMaxBytes, true));
    row.count = static_cast<std::uint64_t>(number_cell(line, start + 1, "count", number, 0, kMaxBytes, true));
    row.type = line.words[start + 2];
    std::size_t i = start + 3;
    // Older releases leave the redop cell blank for programs that do not reduce.
    if (t.has_redop && i < n && starts_with_letter(line.words[i])) row.redop = line.words[i++];
    std::optional<std::int64_t> root;
    if (t.has_root) {
      if (i >= n) throw truncated(n - start);
      root = static_cast<std::int64_t>(number_cell(line, i++, "root", number, -1, 1 << 24, true));
      row.root = static_cast<int>(*root);
    }
    if (n - i < static_cast<std::size_t>(t.figure_cells)) throw truncated(n - start);
    auto read = [&](const PlacementColumns& c) -> std::optional<PlacementFigures> {
      if (c.busbw < 0) return std::nullopt;
      const std::string& busbw = line.words[i + static_cast<std::size_t>(c.busbw)];
      if (not_measured(busbw)) {
        side_.notes.push_back("line " + std::to_string(number) + ": busbw N/A (not measured): skipped");
        return std::nullopt;
      }
      PlacementFigures f;
      f.time_us = number_cell(line, i + static_cast<std::size_t>(c.time), "time", number, 0, kMaxFigure, false) * t.time_scale;
      if (c.algbw >= 0) f.algbw = number_cell(line, i + static_cast<std::size_t>(c.algbw), "algbw", number, 0, kMaxFigure, false);
      f.busbw = number_cell(line, i + static_cast<std::size_t>(c.busbw), "busbw", number, 0, kMaxFigure, false);
      f.busbw_text = busbw;
      if (c.wrong >= 0 && c.wrong_is_count && !not_measured(line.words[i + static_cast<std::size_t>(c.wrong)])) {
        // "%6g": a count past a million prints as 1.2e+06
        f.wrong = static_cast<std::uint64_t>(
            number_cell(line, i + static_cast<std::size_t>(c.wrong), "#wrong", number, 0, kMaxBytes, false));
      }
      return f;
    };
    row.out_of_place = read(t.out_of_place);
    row.in_place = read(t.in_place);
    const DataType* dtype = nccl_tests_dtype(row.type);
    for (const PlacementColumns* c : {&t.out_of_place, &t.in_place}) {
      if (c->busbw < 0 || c->algbw < 0) continue;
      const std::string& busbw = line.words[i + static_cast<std::size_t>(c->busbw)];
      if (not_measured(busbw)) continue;
      block_->evidence.add_row(row.size, row.count, dtype ? dtype->bytes : 0, row.redop, root,
                               line.words[i + static_cast<std::size_t>(c->algbw)], busbw);
      break;
    }
    if (row.out_of_place && row.in_place && t.out_of_place.wrong >= 0 && t.in_place.wrong >= 0 &&
        t.out_of_place.wrong_is_count && t.in_place.wrong_is_count) {
      block_->evidence.add_checks(line.words[i + static_cast<std::size_t>(t.out_of_place.wrong)],
                                  line.words[i + static_cast<std::size_t>(t.in_place.wrong)]);
    }
    if (!t.has_redop || row.redop.empty()) row.redop = "none";
    block_->rows.push_back(std::move(row));
  }

  void close_block(int number) {
    if (!block_) return;
    if (cut_row_) lose_cut_row(*std::exchange(cut_row_, std::nullopt));
    TestBlock& b = *block_;
    if (!b.concluded) {
      throw error(number, "truncated nccl-tests output: the test started at line " + std::to_string(b.first_line) +
                              " never printed '# Collective test concluded' (or, before 2.17, '# Avg bus bandwidth')");
    }
    SideIdentity& id = side_.identity;
    const int ranks =
        split_communicator_ranks(side_, b.ranks.empty() ? b.threads_x_gpus : static_cast<int>(b.ranks.size()),
                                 b.groups.size(), "the test at line " + std::to_string(b.first_line),
                                 SourcePosition{side_.identity.path, b.first_line, 0});
    if (!b.rows.empty()) {
      if (id.ranks != 0 && id.ranks != ranks) {
        throw UsageError("the test at line " + std::to_string(b.first_line) + " ran on " + std::to_string(ranks) +
                             " ranks, the one at line " + std::to_string(ranks_line_) + " on " + std::to_string(id.ranks) +
                             ": busbw at different rank counts is not the same measurement",
                         "give each rank count's tests in a file of their own (cut this one at line " +
                             std::to_string(b.first_line) + ")",
                         SourcePosition{side_.identity.path, b.first_line, 0});
      }
      if (id.ranks == 0) ranks_line_ = b.first_line;
      id.ranks = ranks;
      id.hosts = std::max(id.hosts, static_cast<int>(b.hosts.size()));
      std::string gpus;
      for (const auto& g : b.gpus) gpus += (gpus.empty() ? "" : ", ") + g;
      if (b.gpus.size() > 1) gpus = "mixed: " + gpus;
      if (id.gpu.empty()) id.gpu = gpus;
      add_rows(b, ranks);
    }
    block_.reset();
  }

  void add_rows(const TestBlock& b, int ranks) {
    const TestCollective named =
        collective_of_test(b.named, side_.identity.path, b.evidence, ranks, b.first_line,
                           "the output names no nccl-tests program (releases before 2.17 print no '# Collective test "
                           "starting' line)");
    if (!named.note.empty()) side_.notes.push_back(named.note);
    if (side_.identity.name.empty()) side_.identity.name = named.collective + "_perf";
    PrintedAverage average;
    average.every_row_kept = !b.row_lost;
    for (const RawRow& raw : b.rows) {
      for (const auto& [figures, place] : {std::pair{&raw.out_of_place, Placement::out_of_place},
                                           std::pair{&raw.in_place, Placement::in_place}}) {
        if (!*figures) continue;
        std::string skipped;
        const auto key = nccl_tests_key(named.collective, raw.type, raw.redop, raw.size, place, skipped);
        if (!key) {
          note_skipped_row(side_, skipped);
          average.every_row_kept = false;
          continue;
        }
        const PlacementFigures& f = **figures;
        SideRow row;
        row.key = *key;
        row.key.variant.launch = b.launch;  // nccl-tests' -G and -z 1 are ncclsweep's graph and blocking
        row.count = raw.count;
        row.root = raw.root;
        row.time_us = f.time_us;
        row.algbw_gbps = f.algbw;
        row.busbw_gbps = f.busbw;
        row.busbw_resolution_gbps = half_last_digit(f.busbw_text);
        row.wrong = f.wrong;
        // nccl-tests allocates once at maxBytes and rotates each iteration through it, and
        // never flushes a cache: footprint "largest" at maxBytes, warm.
        if (b.max_bytes) {
          row.footprint_bytes = b.max_bytes;
          row.footprint = BufferFootprint{FootprintMode::largest, 0};
        }
        row.cache = CacheState::warm;
        side_.rows.push_back(row);
        // A size printed again (-N cycles, -r all roots): the first row is kept, and the
        // test's average, over every row printed, is not of the rows kept.
        if (std::find(average.rows.begin(), average.rows.end(), *key) != average.rows.end()) average.every_row_kept = false;
        average.rows.push_back(*key);
      }
    }
    if (b.average_text && !average.rows.empty()) {
      average.text = *b.average_text;
      std::sort(average.rows.begin(), average.rows.end());
      average.rows.erase(std::unique(average.rows.begin(), average.rows.end()), average.rows.end());
      side_.printed_averages.push_back(std::move(average));
    }
  }

  Side side_;
  std::optional<TestBlock> block_;
  std::vector<std::string> pending_programs_;  // named before the next test starts
  std::optional<CutRow> cut_row_;  // a row's first cells, cut from its figures by NCCL's log
  int last_line_ = 0;
  int ranks_line_ = 0;  // the first test with rows: where the file's rank count comes from
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
