// NCCL COLL lines, e.g.
//   host:1234:1240 [0] NCCL INFO AllGather: opCount 0 sendbuff 0x.. recvbuff 0x.. count 6298112
//   datatype 9 op 0 root 0 comm 0x.. [nranks=2] stream 0x..
// Every rank writes its own lines; count is per rank; datatype and op are NCCL's numbers.
#include <cerrno>
#include <map>
#include <sstream>

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

struct LineFields {
  std::string rank;  // "host:pid [dev]"
  std::string name;  // "AllGather"
  std::map<std::string, std::string> values;
  int nranks = 0;
};

// Splits a COLL line; false when the line is not one.
bool parse_coll_line(std::string_view line, const std::string& file, LineFields& out) {
  const auto read = read_nccl_log_line(line);
  if (!read || read->level != "INFO") return false;
  std::istringstream rest{std::string(read->message)};
  std::string name, key;
  rest >> name >> key;
  if (name.size() < 2 || name.back() != ':' || key != "opCount") return false;
  out.name = name.substr(0, name.size() - 1);
  for (std::string value; rest >> value;) {
    out.values[key] = value;
    if (!(rest >> key)) break;
    if (key.rfind("[nranks=", 0) == 0) {
      out.nranks = std::atoi(key.c_str() + 8);
      if (!(rest >> key)) break;
    }
  }
  out.rank = read->origin.empty() ? file : process_of(read->origin);
  return true;
}

long number(const LineFields& f, const std::string& key, const std::string& where) {
  const auto it = f.values.find(key);
  char* end = nullptr;
  errno = 0;
  const long value = it == f.values.end() ? -1 : std::strtol(it->second.c_str(), &end, 10);
  // Past 2^50 (elements, ids) no real log goes; byte totals derived from it must not overflow.
  if (it == f.values.end() || *end != '\0' || value < 0 || errno == ERANGE || value > (1L << 50)) {
    throw UsageError("COLL line without a valid '" + key + "'", "pass unmodified NCCL_DEBUG_SUBSYS=COLL logs", {where});
  }
  return value;
}

}  // namespace

CommProfile import_nccl_log(const std::string& pattern, int iterations) {
  const auto files = expand_pattern(pattern, "NCCL logs");
  ImportCounter counter;
  std::map<std::string, long> skipped;
  long custom_ops = 0;
  for (const auto& file : files) {
    for_each_text_line(file, kJobLogInput, [&](std::string_view line, int line_number) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      LineFields f;
      if (!parse_coll_line(line, file, f)) return;
      const std::string where = file + ":" + std::to_string(line_number);
      const auto* kind = logged_collective(f.name);
      if (kind == nullptr) {
        ++skipped[f.name];
        return;
      }
      const auto* type = dtype_by_nccl_id(number(f, "datatype", where));
      if (type == nullptr) throw UsageError("unknown NCCL datatype " + f.values["datatype"], {}, {where});
      if (f.nranks < 1) throw UsageError("COLL line without [nranks=N]", "use NCCL 2.19 or later logs", {where});
      const auto count = static_cast<std::uint64_t>(number(f, "count", where));
      const long op_id = kind->reduces ? number(f, "op", where) : -1;
      // Ids past avg are NCCL's custom operators (ncclRedOpCreatePreMulSum): a sum of
      // scaled inputs, measured as a sum.
      std::optional<ReduceOp> op;
      if (op_id >= 0) op = op_id < kReduceOpCount ? static_cast<ReduceOp>(op_id) : ReduceOp::sum;
      if (op_id >= kReduceOpCount) ++custom_ops;
      counter.add(*kind, total_bytes(*kind, count, f.nranks, type->bytes), type, op, f.nranks, f.rank);
    });
  }
  if (counter.empty()) {
    throw UsageError("no NCCL collective lines ('<Collective>: opCount ...') in " + std::to_string(files.size()) +
                         " file(s) matching '" + pattern + "'",
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
  return profile;
}

}  // namespace ncclsweep
