// NCCL COLL lines, e.g.
//   host:1234:1240 [0] NCCL INFO AllGather: opCount 0 sendbuff 0x.. recvbuff 0x.. count 6298112
//   datatype 9 op 0 root 0 comm 0x.. [nranks=2] stream 0x..
// as NCCL 2.4 and later and RCCL print them (RCCL adds "task T globalrank G" or
// "devRedOp ..."); whatever precedes NCCL's "host:pid:tid [dev]" is passed over
// (verify/nccl_log_line.hpp). Every rank writes its own lines; count is per rank;
// datatype and op are NCCL's numbers.
#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "core/checked_number.hpp"
#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "importers/import_counter.hpp"
#include "importers/importers.hpp"
#include "importers/input_files.hpp"
#include "verify/nccl_log_line.hpp"

namespace ncclsweep {
namespace {

const DataType* dtype_by_nccl_id(long id) {
  for (const auto& t : all_data_types()) if (t.nccl_id == id) return &t;
  return nullptr;
}

// Each Send is one message of a sendrecv; its Recv is the other end.
const CollectiveKind* logged_collective(const std::string& name) {
  return name == "Send" ? &collective("sendrecv") : collective_by_nccl_name(name);
}

// Calls NCCL or RCCL log under names ncclsweep does not measure.
bool known_unmeasured(const std::string& name) {
  for (const char* n : {"Recv", "Gather", "Scatter", "AllToAllv", "AlltoAllv", "AllToAllPivot", "PutSignal", "Signal",
                        "WaitSignal", "AllGatherV", "ReduceScatterV"}) {
    if (name == n) return true;
  }
  return false;
}

struct LineFields {
  std::string rank;  // "host:pid [dev]"
  std::string name;  // "AllGather"
  std::map<std::string, std::string> values;
  int nranks = 0;
  std::string nranks_token;  // what stood where "[nranks=N]" goes, when it was not that
};

// Splits a COLL line; false when the line is not one. A line whose "opCount" has no
// collective before it (NCCL 2.3 and earlier printed none) is refused with that token.
bool parse_coll_line(std::string_view line, const std::string& file, const SourcePosition& where, LineFields& out) {
  const auto read = read_nccl_log_line(line);
  if (!read || read->level != "INFO") return false;
  std::istringstream in{std::string(read->message)};
  std::vector<std::string> tokens;
  for (std::string t; in >> t;) tokens.push_back(t);
  std::size_t op_count = 0;
  while (op_count < tokens.size() && tokens[op_count] != "opCount") ++op_count;
  if (op_count == tokens.size()) return false;
  const auto names_a_call = [](const std::string& token) {
    return token.ends_with(':') || logged_collective(token) != nullptr || known_unmeasured(token);
  };
  if (op_count > 0 && !names_a_call(tokens[op_count - 1])) return false;  // "opCount" in other words
  if (op_count == 0) {
    throw UsageError("a COLL line names no collective: it starts with 'opCount', as NCCL 2.3 and earlier print it",
                     "use the logs of NCCL 2.4 or later (or RCCL), whose COLL lines start with the collective "
                     "('AllReduce: opCount ...')",
                     where);
  }
  // "AllReduce:" (also after a bracketed tag, "[0] AllReduce:"), or "Coll: AllReduce".
  out.name = tokens[op_count - 1];
  if (out.name.ends_with(':')) out.name.pop_back();
  std::string key = "opCount";
  for (std::size_t i = op_count + 1; i < tokens.size(); ++i) {
    out.values[key] = tokens[i];
    if (++i >= tokens.size()) break;
    key = tokens[i];
    if (key.starts_with("[nranks=")) {
      const auto n = parse_integer_text(std::string_view(key).substr(8, key.size() - 9));
      if (key.ends_with("]") && n && *n > 0 && *n <= (1 << 24)) out.nranks = static_cast<int>(*n);
      else out.nranks_token = key;
      if (++i >= tokens.size()) break;
      key = tokens[i];
    }
  }
  out.rank = read->origin.empty() ? file : process_of(read->origin);
  return true;
}

long number(const LineFields& f, const std::string& key, const SourcePosition& where) {
  const auto it = f.values.find(key);
  if (it == f.values.end()) {
    throw UsageError("the " + f.name + " COLL line has no '" + key + "' field", "pass the COLL lines NCCL wrote, unmodified",
                     where);
  }
  const auto value = parse_integer_text(it->second);
  // Past 2^50 (elements, ids) no real log goes; byte totals derived from it must not overflow.
  if (!value || *value < 0 || *value > (std::int64_t{1} << 50)) {
    throw UsageError("the " + f.name + " COLL line's " + key + " '" + it->second + "' is not a whole number NCCL logs",
                     "pass the COLL lines NCCL wrote, unmodified", where);
  }
  return static_cast<long>(*value);
}

}  // namespace

CommProfile import_nccl_log(const std::string& pattern, int iterations) {
  const auto files = expand_pattern(pattern, "NCCL logs");
  ImportCounter counter;
  std::map<std::string, long> skipped, unknown;
  std::map<std::string, SourcePosition> unknown_where;  // the first line of each
  long custom_ops = 0;
  // A COLL line that does not read is refused, unless it is its file's last: a job
  // killed while NCCL wrote cuts that one short.
  std::vector<UsageError> cut_short;
  for (const auto& file : files) {
    std::optional<UsageError> unread;
    for_each_text_line(file, kJobLogInput, [&](std::string_view line, int line_number) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      if (line.empty()) return;
      if (unread) throw *unread;
      const SourcePosition where{file, line_number, 0};
      try {
        LineFields f;
        if (!parse_coll_line(line, file, where, f)) return;
        const auto* kind = logged_collective(f.name);
        if (kind == nullptr) {
          if (known_unmeasured(f.name)) {
            ++skipped[f.name];
          } else {
            ++unknown[f.name];
            unknown_where.emplace(f.name, where);
          }
          return;
        }
        const auto* type = dtype_by_nccl_id(number(f, "datatype", where));
        if (type == nullptr) {
          throw UsageError("the " + f.name + " COLL line's datatype " + f.values["datatype"] + " is not one NCCL or RCCL numbers",
                           "pass the COLL lines NCCL wrote, unmodified", where);
        }
        if (f.nranks < 1) {
          throw UsageError("the " + f.name + " COLL line has " +
                               (f.nranks_token.empty() ? std::string("no '[nranks=N]'") : "'" + f.nranks_token + "' where '[nranks=N]' goes"),
                           "pass the COLL lines NCCL wrote, unmodified (every NCCL since 2.3 and RCCL print [nranks=N])", where);
        }
        const auto count = static_cast<std::uint64_t>(number(f, "count", where));
        const long op_id = kind->reduces ? number(f, "op", where) : -1;
        // Ids past avg are NCCL's custom operators (ncclRedOpCreatePreMulSum): a sum of
        // scaled inputs, measured as a sum.
        std::optional<ReduceOp> op;
        if (op_id >= 0) op = op_id < kReduceOpCount ? static_cast<ReduceOp>(op_id) : ReduceOp::sum;
        if (op_id >= kReduceOpCount) ++custom_ops;
        counter.add(*kind, total_bytes(*kind, count, f.nranks, type->bytes), type, op, f.nranks, f.rank);
      } catch (const UsageError& e) {
        unread = e;
      }
    });
    if (unread) cut_short.push_back(*unread);
  }
  if (counter.empty() && !cut_short.empty()) throw cut_short.front();
  if (counter.empty()) {
    if (!unknown.empty()) {
      const auto& [name, n] = *unknown.begin();
      throw UsageError("no COLL line ncclsweep can read in " + std::to_string(files.size()) + " file(s) matching '" + pattern +
                           "': the token '" + name + "' before 'opCount' (" + std::to_string(n) +
                           " lines) is not a collective NCCL or RCCL logs",
                       "pass the COLL lines NCCL wrote ('<Collective>: opCount ...'), unmodified", unknown_where[name]);
    }
    std::string only;
    for (const auto& [name, n] : skipped) only += (only.empty() ? "" : ", ") + std::to_string(n) + " " + name;
    throw UsageError("no NCCL collective lines ('<Collective>: opCount ...') " +
                         (only.empty() ? std::string() : "of a collective ncclsweep measures (only " + only + ") ") + "in " +
                         std::to_string(files.size()) + " file(s) matching '" + pattern + "'",
                     "run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL (plus NCCL_DEBUG_FILE=dir/nccl.%h.%p.log)",
                     {files.front()});
  }
  auto profile = counter.profile(pattern + " (" + std::to_string(files.size()) + " files)", "NCCL COLL lines", iterations);
  if (custom_ops > 0) {
    profile.notes.push_back(std::to_string(custom_ops) + " call(s) with a custom reduction operator (a pre-multiplied "
                            "sum, ncclRedOpCreatePreMulSum) counted as sum");
  }
  for (const auto& [name, n] : skipped) {
    profile.notes.push_back("skipped " + std::to_string(n) + " " + name + " lines" +
                            (name == "Recv" ? " (the receiving end of Sends, which are counted)" : " (not a collective ncclsweep measures)"));
  }
  for (const UsageError& e : cut_short) {
    profile.notes.push_back("skipped the last line of " + e.where().file + " (line " + std::to_string(e.where().line) +
                            "), a COLL line that does not read, as a job killed while NCCL wrote leaves it: " + e.what());
  }
  for (const auto& [name, n] : unknown) {
    profile.notes.push_back("skipped " + std::to_string(n) + " lines whose collective '" + name +
                            "' is not one NCCL or RCCL logs (first at " + unknown_where[name].str() + ")");
  }
  return profile;
}

}  // namespace ncclsweep
