#include "compare/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "compare/footprint_match.hpp"
#include "core/errors.hpp"
#include "core/number_format.hpp"

namespace ncclsweep {
namespace {

std::string text_of(const std::string& s) { return s; }
std::string text_of(Bytes b) { return format_bytes(b); }

template <typename T>
std::string join(const std::set<T>& items, std::size_t limit = 8) {
  std::string s;
  std::size_t n = 0;
  for (const auto& item : items) {
    if (n++ == limit) return s + ", ... (" + std::to_string(items.size()) + " in all)";
    s += (s.empty() ? "" : ", ") + text_of(item);
  }
  return s;
}

template <typename Field>
auto values_of(const Side& side, Field field) {
  std::set<decltype(field(side.rows.front().key))> out;
  for (const auto& row : side.rows) out.insert(field(row.key));
  return out;
}

// "x only in NEW: a, b" for each side, when the sets differ.
template <typename T>
void note_one_sided(const std::string& what, const std::set<T>& in_new, const std::set<T>& in_ref,
                    std::vector<std::string>& out) {
  std::set<T> only_new, only_ref;
  std::set_difference(in_new.begin(), in_new.end(), in_ref.begin(), in_ref.end(), std::inserter(only_new, only_new.end()));
  std::set_difference(in_ref.begin(), in_ref.end(), in_new.begin(), in_new.end(), std::inserter(only_ref, only_ref.end()));
  if (!only_new.empty()) out.push_back(what + " only in NEW: " + join(only_new));
  if (!only_ref.empty()) out.push_back(what + " only in REFERENCE: " + join(only_ref));
}

void note_identity(const std::string& what, const std::string& a, const std::string& b, std::vector<std::string>& out) {
  if (a != b) out.push_back(what + ": NEW " + (a.empty() ? "unknown" : a) + ", REFERENCE " + (b.empty() ? "unknown" : b));
}

std::string holdings(const Side& side) {
  const auto sizes = values_of(side, [](const RowKey& k) { return k.size_bytes; });
  return std::to_string(side.identity.ranks) + " ranks, " +
         join(values_of(side, [](const RowKey& k) { return std::string(k.collective->name) + " " + std::string(k.dtype->name); })) + ", sizes " +
         format_bytes(*sizes.begin()) + " .. " + format_bytes(*sizes.rbegin());
}

}  // namespace

Verdict judge(double new_value, double new_band, double ref_value, double ref_band) {
  const double difference = new_value - ref_value;
  if (std::abs(difference) <= std::max(new_band, ref_band)) return Verdict::same;
  if (std::abs(difference) <= new_band + ref_band) return Verdict::ambiguous;  // bands overlap
  return difference > 0 ? Verdict::faster : Verdict::slower;
}

Verdict judge_row(double new_value, double new_band, double ref_value, double ref_band, bool footprint_differs,
                  double max_band_share, double printed_resolution) {
  // The same figure on both sides (a file against itself, 0.00 against 0.00): nothing
  // moved, so no band, however wide, can make it anything but same. A wide band says a
  // gap could be noise; it cannot invent one where there is none.
  const double gap = std::abs(new_value - ref_value);
  if (gap <= printed_resolution + 1e-12 * std::max(std::abs(new_value), std::abs(ref_value))) return Verdict::same;
  Verdict v = judge(new_value, new_band, ref_value, ref_band);
  if (footprint_differs && v != Verdict::same && !beyond_footprint_envelope(new_value, new_band, ref_value, ref_band)) {
    v = Verdict::ambiguous;
  }
  const bool too_wide = new_band > max_band_share * new_value || ref_band > max_band_share * ref_value;
  if (too_wide && (v == Verdict::same || v == Verdict::ambiguous)) v = Verdict::unresolved;
  return v;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::ambiguous: return "ambiguous";
    case Verdict::unresolved: return "unresolved";
  }
  return "?";
}

Comparison compare_sides(const Side& new_side, const Side& reference, const CompareOptions& options) {
  Comparison c;
  c.new_side = new_side.identity;
  c.reference = reference.identity;
  c.options = options;
  const SideIdentity& a = new_side.identity;
  const SideIdentity& b = reference.identity;
  if (a.ranks != b.ranks) {
    const std::string what = "NEW ran on " + std::to_string(a.ranks) + " ranks, REFERENCE on " + std::to_string(b.ranks) +
                             ": busbw at different rank counts is not the same measurement";
    if (!options.allow_rank_mismatch) {
      throw UsageError(what, "compare runs at the same rank count, or pass --allow-rank-mismatch to compare anyway");
    }
    c.differences.push_back(what + " (allowed)");
  }
  note_identity("hosts", std::to_string(a.hosts), std::to_string(b.hosts), c.differences);
  note_identity("GPU", a.gpu, b.gpu, c.differences);
  note_identity("NCCL", a.nccl_version, b.nccl_version, c.differences);
  note_identity("CUDA runtime", a.cuda_version, b.cuda_version, c.differences);
  const auto source_text = [](const SideIdentity& id) {
    return std::string(name_of(id.source)) + (id.engine ? " (engine " + std::string(name_of(*id.engine)) + ")" : "");
  };
  note_identity("source", source_text(a), source_text(b), c.differences);
  note_one_sided("collectives", values_of(new_side, [](const RowKey& k) { return std::string(k.collective->name); }),
                 values_of(reference, [](const RowKey& k) { return std::string(k.collective->name); }), c.differences);
  note_one_sided("dtypes", values_of(new_side, [](const RowKey& k) { return std::string(k.dtype->name); }),
                 values_of(reference, [](const RowKey& k) { return std::string(k.dtype->name); }), c.differences);
  note_one_sided("sizes", values_of(new_side, [](const RowKey& k) { return k.size_bytes; }),
                 values_of(reference, [](const RowKey& k) { return k.size_bytes; }), c.differences);
  for (const auto& n : new_side.notes) c.notes.push_back("NEW: " + n);
  for (const auto& n : reference.notes) c.notes.push_back("REFERENCE: " + n);

  // One rank moves nothing over a bus: its busbw is 0 (nccl-tests prints 0 too) and every
  // verdict would be 0 against 0. Both sides on one rank: the call's own bandwidth (algbw)
  // is the figure, the same ratio busbw would give at any other rank count.
  const bool one_rank = a.ranks == 1 && b.ranks == 1;
  std::size_t on_algbw = 0;
  const auto figure = [&](SideRow r) {
    if (one_rank && !(r.busbw_gbps > 0) && r.algbw_gbps > 0) {
      r.busbw_gbps = r.algbw_gbps;
      ++on_algbw;
    }
    return r;
  };
  std::map<RowKey, const SideRow*> reference_rows;
  for (const auto& row : reference.rows) reference_rows.emplace(row.key, &row);
  std::optional<RowComparison> first_footprint_mismatch;  // for the header line
  FootprintRows footprint_rows;
  std::size_t below_min_size = 0;
  for (const auto& row : new_side.rows) {
    const auto match = reference_rows.find(row.key);
    if (match == reference_rows.end()) continue;
    if (row.key.size_bytes < options.min_size) {
      ++below_min_size;
      continue;
    }
    RowComparison r;
    r.key = row.key;
    r.new_row = figure(row);
    r.reference_row = figure(*match->second);
    r.ratio = r.reference_row.busbw_gbps > 0 ? r.new_row.busbw_gbps / r.reference_row.busbw_gbps : 0;
    r.new_band_gbps = noise_band_gbps(r.new_row, options.noise);
    r.reference_band_gbps = noise_band_gbps(r.reference_row, options.noise);
    // Different buffer footprints or cache states at small sizes: judged only where the
    // gap is beyond what the footprint explains, or where the two agree anyway.
    r.footprint_differs = footprint_mismatch(r.new_row, r.reference_row).has_value();
    r.verdict = judge_row(r.new_row.busbw_gbps, r.new_band_gbps, r.reference_row.busbw_gbps, r.reference_band_gbps,
                          r.footprint_differs, options.max_band_share,
                          std::max(r.new_row.busbw_resolution_gbps, r.reference_row.busbw_resolution_gbps));
    // Fast wrong answers are no result: a row NEW got wrong fails whatever its speed.
    r.wrong_data = r.new_row.wrong.value_or(0) > 0;
    r.fails = (r.verdict == Verdict::slower && r.ratio < options.threshold) || r.wrong_data;
    if (r.footprint_differs) {
      if (!first_footprint_mismatch) first_footprint_mismatch = r;
      ++(r.verdict == Verdict::ambiguous ? footprint_rows.ambiguous : footprint_rows.judged);
    }
    for (const auto& [which, checked] : {std::pair{"NEW", &r.new_row}, std::pair{"REFERENCE", &r.reference_row}}) {
      if (checked->wrong.value_or(0) > 0) {
        c.notes.push_back(std::string(which) + ": " + row_label(r.key) + " had " + std::to_string(*checked->wrong) +
                          " wrong elements");
      }
    }
    c.rows.push_back(r);
  }
  if (first_footprint_mismatch) {
    c.differences.push_back(footprint_difference_line(first_footprint_mismatch->new_row, new_side.identity,
                                                      first_footprint_mismatch->reference_row, reference.identity,
                                                      footprint_rows));
  }
  if (below_min_size > 0) {
    c.notes.push_back(std::to_string(below_min_size) + " matching rows below --min-size " + format_bytes(options.min_size) +
                      " get no verdict");
  }
  if (on_algbw > 0) {
    c.notes.push_back("one rank on both sides: " + std::to_string(on_algbw) +
                      " figures are algbw, whose busbw is 0 without a bus (the ratio is the same)");
  }
  // The workload NEW ran, else the reference's: its calls weigh the gate's rows.
  if (options.target && !c.rows.empty()) {
    c.acceptance = acceptance_gate(c, *options.target, new_side.workload ? new_side.workload : reference.workload);
  }
  if (c.rows.empty()) {
    if (new_side.rows.empty() || reference.rows.empty()) {
      const bool new_empty = new_side.rows.empty();
      const SideIdentity& empty = (new_empty ? new_side : reference).identity;
      throw UsageError(std::string(new_empty ? "the new side " : "the reference ") + empty.path + " holds no rows",
                       "give results with measurements");
    }
    if (below_min_size > 0) {
      throw UsageError("nothing to compare: all " + std::to_string(below_min_size) + " matching rows are below --min-size " +
                           format_bytes(options.min_size),
                       "lower --min-size, or compare runs that reach larger sizes");
    }
    throw UsageError("nothing to compare: no row of NEW (" + holdings(new_side) + ") matches a row of REFERENCE (" +
                         holdings(reference) + ")",
                     "rows match on collective, dtype, op, size and placement; compare runs of the same collectives and sizes");
  }
  return c;
}

int Comparison::exit_status() const {
  if (std::any_of(rows.begin(), rows.end(), [](const RowComparison& r) { return r.fails; })) return kExitRegression;
  if (!acceptance) return kExitOk;
  switch (acceptance->verdict) {
    case GateVerdict::pass: return kExitOk;
    case GateVerdict::fail: return kExitRegression;
    case GateVerdict::unresolved: break;
  }
  return kExitUnresolved;
}

bool Comparison::passed() const { return exit_status() == kExitOk; }

std::string Comparison::summary() const {
  std::map<Verdict, int> counts;
  const RowComparison* fastest = nullptr;
  const RowComparison* slowest = nullptr;
  std::vector<const RowComparison*> failing, wrong;
  for (const auto& r : rows) {
    ++counts[r.verdict];
    if (r.verdict == Verdict::faster && (!fastest || r.ratio > fastest->ratio)) fastest = &r;
    if (r.verdict == Verdict::slower && (!slowest || r.ratio < slowest->ratio)) slowest = &r;
    if (r.wrong_data) {
      wrong.push_back(&r);
    } else if (r.fails) {
      failing.push_back(&r);
    }
  }
  std::string s = std::to_string(rows.size()) + " rows: " + std::to_string(counts[Verdict::same]) + " same";
  if (counts[Verdict::faster]) {
    s += ", " + std::to_string(counts[Verdict::faster]) + " faster (" + (counts[Verdict::faster] > 1 ? "up to " : "") +
         percent_change(fastest->ratio) + " at " + row_label(fastest->key) + ")";
  }
  if (counts[Verdict::slower]) {
    s += ", " + std::to_string(counts[Verdict::slower]) + " slower (" + (counts[Verdict::slower] > 1 ? "worst " : "") +
         percent_change(slowest->ratio) + " at " + row_label(slowest->key) + ")";
  }
  if (counts[Verdict::ambiguous]) s += ", " + std::to_string(counts[Verdict::ambiguous]) + " ambiguous";
  if (counts[Verdict::unresolved]) {
    s += ", " + std::to_string(counts[Verdict::unresolved]) + " unresolved (" + kUnresolvedAdvice + ")";
  }
  char limit[16];
  std::snprintf(limit, sizeof limit, "%g%%", options.threshold * 100);
  const int judged = counts[Verdict::same] + counts[Verdict::faster] + counts[Verdict::slower];
  if (failing.empty() && wrong.empty() && acceptance) return s + " -> " + acceptance->summary_tail();
  if (failing.empty() && wrong.empty()) return s + (judged == 0 ? " -> PASS, but no row was judged" : " -> PASS");
  const auto some = [](const std::vector<const RowComparison*>& list) {
    std::string text;
    for (std::size_t i = 0; i < list.size() && i < 3; ++i) text += (i ? ", " : "") + row_label(list[i]->key);
    if (list.size() > 3) text += " and " + std::to_string(list.size() - 3) + " more";
    return text;
  };
  s += " -> FAIL: ";
  if (!wrong.empty()) s += "NEW returned wrong data at " + some(wrong) + (failing.empty() ? "" : "; ");
  if (!failing.empty()) s += "below " + std::string(limit) + " of reference at " + some(failing);
  return s;
}

}  // namespace ncclsweep
