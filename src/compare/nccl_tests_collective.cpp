#include "compare/nccl_tests_collective.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "core/checked_number.hpp"
#include "core/errors.hpp"

namespace ncclsweep {
namespace {

// What each nccl-tests program prints (src/<program>.cu, every release since 2.0):
// whether its redop column names an op, whether its root column holds a rank, whether
// count is one rank's share of the buffer, and the busbw/algbw factors it has used.
struct ProgramShape {
  std::string_view name;
  bool op;
  bool rooted;
  bool per_rank_count;
  bool checks_in_place;
  // busbw / algbw at n ranks; all_gather and reduce_scatter printed 1 before 2020.
  std::array<double (*)(int), 2> factors;
};

double ring_share(int n) { return static_cast<double>(n - 1) / n; }
double twice_ring_share(int n) { return 2.0 * (n - 1) / n; }
double one(int) { return 1; }

constexpr std::array<ProgramShape, 11> kPrograms{{
    {"all_reduce", true, false, false, true, {twice_ring_share, nullptr}},
    {"all_gather", false, false, true, true, {ring_share, one}},
    {"reduce_scatter", true, false, true, true, {ring_share, one}},
    {"broadcast", false, true, false, true, {one, nullptr}},
    {"reduce", true, true, false, true, {one, nullptr}},
    {"alltoall", false, false, true, false, {ring_share, nullptr}},
    {"alltoallv", false, false, true, false, {nullptr, nullptr}},  // its busbw follows the largest peer's share
    // sendrecv prints the op it was given (sum) since 2.13, and no redop column before.
    {"sendrecv", true, false, false, false, {one, nullptr}},
    {"gather", false, true, true, true, {ring_share, nullptr}},
    {"scatter", false, true, true, true, {ring_share, nullptr}},
    {"hypercube", false, false, true, true, {one, nullptr}},
}};

const ProgramShape* program_shape(std::string_view name) {
  for (const auto& p : kPrograms) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& names, const char* last = " or ") {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + names[i];
  }
  return s;
}

std::string lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "AllReduce_8gpu-log" -> allreduce 8 gpu log
std::vector<std::string> file_name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (const char raw : lower(name)) {
    const auto c = static_cast<unsigned char>(raw);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (!word.empty() && (std::isdigit(c) != 0) != (std::isdigit(static_cast<unsigned char>(word.back())) != 0)) flush();
    word.push_back(raw);
  }
  flush();
  return words;
}

// Runs of file-name words that name a program, longest first where they overlap.
struct NameSpelling {
  std::array<std::string_view, 3> words;
  std::string_view program;
};
constexpr std::array<NameSpelling, 22> kSpellings{{
    {{"all", "to", "allv"}, "alltoallv"},
    {{"all", "to", "all"}, "alltoall"},
    {{"all", "2", "all"}, "alltoall"},
    {{"all", "reduce"}, "all_reduce"},
    {{"all", "gather"}, "all_gather"},
    {{"reduce", "scatter"}, "reduce_scatter"},
    {{"send", "recv"}, "sendrecv"},
    {{"alltoallv"}, "alltoallv"},
    {{"alltoall"}, "alltoall"},
    {{"allreduce"}, "all_reduce"},
    {{"allgather"}, "all_gather"},
    {{"reducescatter"}, "reduce_scatter"},
    {{"sendrecv"}, "sendrecv"},
    {{"broadcast"}, "broadcast"},
    {{"bcast"}, "broadcast"},
    {{"reduce"}, "reduce"},
    {{"gather"}, "gather"},
    {{"scatter"}, "scatter"},
    {{"hypercube"}, "hypercube"},
    {{"a", "2", "a"}, "alltoall"},
    {{"allgatherv"}, ""},  // a name of its own, not all_gather
    {{"reducescatterv"}, ""},
}};

std::size_t spelling_length(const NameSpelling& s) {
  return static_cast<std::size_t>(std::count_if(s.words.begin(), s.words.end(), [](std::string_view w) { return !w.empty(); }));
}

}  // namespace

double half_last_digit(std::string_view token) {
  const auto e = token.find_first_of("eE");
  const std::string_view mantissa = token.substr(0, e);
  const auto dot = mantissa.find('.');
  const int decimals = dot == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  const double half = 0.5 * std::pow(10.0, -decimals);
  if (e == std::string_view::npos) return half;
  const auto exponent = parse_integer_text(token.substr(e + 1 + (token.size() > e + 1 && token[e + 1] == '+' ? 1 : 0)));
  return exponent ? half * std::pow(10.0, static_cast<double>(*exponent)) : half;
}

void TableEvidence::set_columns(bool has_redop, bool has_root) {
  has_redop_ = has_redop;
  has_root_ = has_root;
  if (!has_root) unrooted_seen_ = true;
}

void TableEvidence::add_row(Bytes size, std::uint64_t count, std::size_t element_bytes, std::string_view redop,
                            std::optional<std::int64_t> root, std::string_view algbw, std::string_view busbw) {
  if (has_redop_) {
    if (redop.empty() || redop == "none") {
      no_op_seen_ = true;
    } else {
      op_seen_ = true;
      if (first_op_.empty()) first_op_ = std::string(redop);
    }
  }
  if (root) (*root >= 0 ? rooted_seen_ : unrooted_seen_) = true;
  if (element_bytes > 0 && count > 0 && size > 0 && size % (count * element_bytes) == 0) {
    const std::uint64_t k = size / (count * element_bytes);
    element_bytes_ = element_bytes;
    if (k == 1) {
      whole_count_seen_ = true;
    } else {
      per_rank_count_seen_ = true;
      per_rank_factor_ = k;
    }
  }
  const auto a = parse_finite_text(algbw);
  const auto b = parse_finite_text(busbw);
  if (!a || !b || *a < 1 || *b <= 0) return;  // below 1 GB/s the digits cannot tell factors apart
  const double ra = half_last_digit(algbw), rb = half_last_digit(busbw);
  const double low = (*b - rb) / (*a + ra), high = (*b + rb) / (*a - ra);
  if (factor_high_ < 0) {
    factor_low_ = low;
    factor_high_ = high;
  } else {
    factor_low_ = std::max(factor_low_, low);
    factor_high_ = std::min(factor_high_, high);
  }
}

void TableEvidence::add_checks(std::string_view out_of_place_wrong, std::string_view in_place_wrong) {
  const bool out_checked = out_of_place_wrong != "N/A", in_checked = in_place_wrong != "N/A";
  if (out_checked && !in_checked) in_place_unchecked_seen_ = true;
  if (out_checked && in_checked) both_checked_seen_ = true;
}

std::vector<std::string> TableEvidence::fitting_programs(int ranks) const {
  // Rows that bound the factor to nothing at all (digits no program prints) tell nothing.
  const bool factor_known = factor_high_ >= factor_low_ && factor_high_ > 0;
  std::vector<std::string> fits;
  for (const auto& p : kPrograms) {
    if ((op_seen_ && !p.op) || (no_op_seen_ && p.op)) continue;
    if ((rooted_seen_ && !p.rooted) || (unrooted_seen_ && p.rooted)) continue;
    if ((in_place_unchecked_seen_ && p.checks_in_place) || (both_checked_seen_ && !p.checks_in_place)) continue;
    if (ranks != 1) {
      if ((per_rank_count_seen_ && !p.per_rank_count) || (whole_count_seen_ && p.per_rank_count)) continue;
      if (per_rank_count_seen_ && ranks > 1 && per_rank_factor_ != static_cast<std::uint64_t>(ranks)) continue;
    }
    if (factor_known && ranks >= 2 && p.factors[0] != nullptr) {
      bool any = false;
      for (const auto factor : p.factors) {
        if (factor == nullptr) continue;
        const double f = factor(ranks);
        any = any || (f >= factor_low_ * (1 - 1e-9) && f <= factor_high_ * (1 + 1e-9));
      }
      if (!any) continue;
    }
    fits.emplace_back(p.name);
  }
  return fits;
}

std::string TableEvidence::describe() const {
  std::vector<std::string> parts;
  if (!has_redop_) parts.emplace_back("no redop column");
  else if (op_seen_) parts.push_back("redop " + first_op_);
  else if (no_op_seen_) parts.emplace_back("no op in the redop column");
  if (rooted_seen_) parts.emplace_back("a root rank");
  else if (has_root_) parts.emplace_back("root -1");
  else parts.emplace_back("no root column");
  if (per_rank_count_seen_) {
    parts.push_back("size = count x " + std::to_string(element_bytes_) + " B x " + std::to_string(per_rank_factor_));
  } else if (whole_count_seen_) {
    parts.push_back("size = count x " + std::to_string(element_bytes_) + " B");
  }
  if (in_place_unchecked_seen_) parts.emplace_back("#wrong N/A in place only");
  else if (both_checked_seen_) parts.emplace_back("#wrong counted in both placements");
  if (factor_high_ >= factor_low_ && factor_high_ > 0) {
    char text[64];
    std::snprintf(text, sizeof text, "busbw = %.2f x algbw", (factor_low_ + factor_high_) / 2);
    parts.emplace_back(text);
  }
  return joined(parts, ", ");
}

std::vector<std::string> programs_named_in(std::string_view text) {
  // A program name as a word of its own: after a path separator, a space, a quote...
  static const std::regex kProgram(R"((^|[^A-Za-z0-9_])([a-z][a-z0-9_]*?)_perf(_mpi)?(?![A-Za-z0-9_]))");
  std::vector<std::string> found;
  const std::string line(text);
  for (auto it = std::sregex_iterator(line.begin(), line.end(), kProgram); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if (program_shape(name) && std::find(found.begin(), found.end(), name) == found.end()) found.push_back(name);
  }
  return found;
}

std::vector<std::string> collectives_in_file_name(std::string_view path) {
  const std::vector<std::string> words = file_name_words(std::filesystem::path(path).filename().string());
  std::vector<std::string> found;
  for (std::size_t i = 0; i < words.size();) {
    const NameSpelling* best = nullptr;
    for (const auto& s : kSpellings) {
      const std::size_t n = spelling_length(s);
      if (i + n > words.size() || (best && n <= spelling_length(*best))) continue;
      bool match = true;
      for (std::size_t k = 0; k < n; ++k) match = match && words[i + k] == s.words[k];
      if (match) best = &s;
    }
    if (!best) {
      ++i;
      continue;
    }
    const std::string program(best->program);
    if (!program.empty() && std::find(found.begin(), found.end(), program) == found.end()) found.push_back(program);
    i += spelling_length(*best);
  }
  return found;
}

TestCollective collective_of_test(const std::vector<std::string>& named_in_output, const std::string& path,
                                  const TableEvidence& table, int ranks, int first_line, const std::string& unnamed_reason) {
  if (named_in_output.size() == 1) return {named_in_output.front(), ""};
  const std::string file = std::filesystem::path(path).filename().string();
  const std::vector<std::string> in_name = collectives_in_file_name(path);
  const std::vector<std::string> fits = table.fitting_programs(ranks);
  const std::string test = first_line > 0 ? "the test at line " + std::to_string(first_line) : "its results";
  const std::string unnamed =
      named_in_output.empty() ? unnamed_reason : "the output names several programs (" + joined(named_in_output, " and ") + ")";
  const std::string fix =
      "rename the file after the program that printed it (e.g. " + (fits.empty() ? std::string("all_reduce") : fits.front()) +
      "_perf.txt), or put the program's '# Collective test starting: <program>_perf' line before the test";
  const SourcePosition where{first_line > 0 ? path : "", first_line, 0};
  const std::string subject = first_line > 0 ? "" : path + ": ";
  if (in_name.size() == 1) {
    const std::string& named = in_name.front();
    if (fits.empty() || std::find(fits.begin(), fits.end(), named) != fits.end()) {
      return {named, "collective '" + named + "' of " + test + " taken from the file name '" + file + "' (" + unnamed +
                         (fits.empty() ? ")" : "; the table agrees: " + table.describe() + ")")};
    }
    throw UsageError(subject + unnamed + "; the file name '" + file + "' says " + named + ", but the table of " + test +
                         " is not " + named + "'s (" + table.describe() + "): it fits " + joined(fits),
                     fix, where);
  }
  if (fits.size() == 1) {
    return {fits.front(), "collective '" + fits.front() + "' of " + test + " recognised from its table (" + table.describe() +
                              "), the one nccl-tests program that prints such a table; " + unnamed};
  }
  const std::string name_part = in_name.empty() ? "the file name '" + file + "' names no collective"
                                                : "the file name '" + file + "' names several (" + joined(in_name, " and ") + ")";
  const std::string table_part = fits.empty() ? "its table fits no nccl-tests program (" + table.describe() + ")"
                                              : "its table (" + table.describe() + ") fits " + joined(fits);
  throw UsageError(subject + "the collective of " + test + " cannot be known: " + unnamed + ", " + name_part + ", and " + table_part,
                   fix, where);
}

}  // namespace ncclsweep
