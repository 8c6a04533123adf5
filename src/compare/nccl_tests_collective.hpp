#pragma once
// Which collective an nccl-tests test measured. The output says so where it prints the
// program's name (`# Collective test starting: all_reduce_perf` since nccl-tests 2.17, or
// a command line captured before the test); otherwise the file's name may, as whole
// words only. The table's own columns show which programs could have printed it (an op
// or none in the redop column, a root, a count per rank or per buffer, busbw over
// algbw): they confirm a name taken from the file name, or name the program alone.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace ncclsweep {

// Half of a printed figure's last digit: "245.62" -> 0.005, "1234.5" -> 0.05, "1.2e+03"
// -> 50. How far the printed text may be from the figure it rounds.
double half_last_digit(std::string_view token);

// What one test's table shows about the program that printed it, row by row.
class TableEvidence {
 public:
  // Without a redop (or root) column at all: nccl-tests before 2.13 printed a root
  // column only for rooted programs.
  void set_columns(bool has_redop, bool has_root);
  // One row as printed: redop "" where the column is blank (older releases leave it
  // blank for programs that do not reduce), root empty without the column,
  // element_bytes 0 for a type ncclsweep does not know, figures as their cells' text.
  void add_row(Bytes size, std::uint64_t count, std::size_t element_bytes, std::string_view redop,
               std::optional<std::int64_t> root, std::string_view algbw, std::string_view busbw);

  // One row's check cells where the table counts wrong elements (#wrong, 2.13+; JSON's
  // nwrong): "N/A" where nothing was checked. alltoall, alltoallv and sendrecv check
  // out of place only (2.13.1+); every other program checks both or neither.
  void add_checks(std::string_view out_of_place_wrong, std::string_view in_place_wrong);

  // nccl-tests' names of the programs ("all_gather", "gather", ...) whose tables look
  // like this one at `ranks` ranks (0: not known).
  std::vector<std::string> fitting_programs(int ranks) const;
  // What the table shows, in words: "redop sum, root -1, size = count x 4 B, busbw = 1.00 x algbw".
  std::string describe() const;

 private:
  bool has_redop_ = true, has_root_ = true;
  bool op_seen_ = false, no_op_seen_ = false;
  std::string first_op_;
  bool rooted_seen_ = false, unrooted_seen_ = false;
  bool whole_count_seen_ = false, per_rank_count_seen_ = false;
  std::uint64_t per_rank_factor_ = 0;
  std::size_t element_bytes_ = 0;
  double factor_low_ = 0, factor_high_ = -1;  // busbw / algbw as the printed digits bound it
  bool in_place_unchecked_seen_ = false, both_checked_seen_ = false;
};

// The nccl-tests programs a piece of text names: "mpirun -np 8 ./build/all_reduce_perf
// -b 8" -> {"all_reduce"}; "all_gather_perf_mpi" -> {"all_gather"}. Only nccl-tests' own
// program names count; each is listed once.
std::vector<std::string> programs_named_in(std::string_view text);

// The collectives a file's name names as whole words (case aside; words split at
// anything that is not a letter or digit, and between letters and digits):
// "allreduce.log" -> {"all_reduce"}, never reduce; "reducescatter_8gpu.txt" ->
// {"reduce_scatter"}; "all-reduce-vs-reduce.txt" -> {"all_reduce", "reduce"}.
std::vector<std::string> collectives_in_file_name(std::string_view path);

struct TestCollective {
  std::string collective;  // nccl-tests' name of the program: "all_reduce", "gather"
  std::string note;        // how it was known, when the output itself does not name it
};

// One test's collective: the program the output names (when it names exactly one), else
// the file name's (when the table fits it), else the table's own when only one program
// fits it. Throws UsageError (at `path`:`first_line`; 0 for a JSON file) saying why it
// cannot be known, or that the file name and the table disagree, and how to name it.
// `unnamed_reason` says why the output names no program ("releases before 2.17 print none").
TestCollective collective_of_test(const std::vector<std::string>& named_in_output, const std::string& path,
                                  const TableEvidence& table, int ranks, int first_line, const std::string& unnamed_reason);

}  // namespace ncclsweep
