#include "report/terminal_table.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/number_format.hpp"
#include "core/printf_text.hpp"
#include "results/best_mode.hpp"
#include "results/measurement_key.hpp"
#include "results/repeats.hpp"
#include "results/node_map.hpp"

namespace ncclsweep {
namespace {

class TerminalTable final : public ResultSink {
 public:
  explicit TerminalTable(std::ostream& out) : out_(out) {}

  void begin(const RunDocument& run) override {
    // iters 0: the noise-based stop picks the count per size (each record's iters).
    const std::string iters = run.settings.iters > 0 ? std::to_string(run.settings.iters) : "noise-based";
    out_ << printf_text("# ncclsweep %s: engine %s, %zu ranks on %zu host(s), warmup %d, iters %s, check %s\n",
                 run.versions.ncclsweep.c_str(), std::string(engine_text(run.settings.engine)).c_str(), run.ranks.size(), run.hosts.size(),
                 run.settings.warmup, iters.c_str(), run.settings.check ? "on" : "off");
    if (!run.versions.nccl_library.empty()) {
      out_ << printf_text("# NCCL %s (built with %s), CUDA runtime %s, driver %s\n", run.versions.nccl_library.c_str(),
                   run.versions.nccl_header.c_str(), run.versions.cuda_runtime.c_str(), run.versions.driver.c_str());
    }
    // Past a few nodes' worth, one line per node: 512 rank lines would bury the table.
    constexpr std::size_t kRankLinesUpTo = 16;
    if (run.ranks.size() > kRankLinesUpTo) {
      for (const auto& node : node_summaries(run.ranks)) out_ << printf_text("#  %s\n", node_summary_line(node).c_str());
    } else {
      print_rank_lines(run);
    }
    for (const auto& note : run.notes) out_ << printf_text("# note: %s\n", note.c_str());
    out_.flush();
  }

  void print_rank_lines(const RunDocument& run) {
    for (const auto& r : run.ranks) {
      if (r.gpu_index >= 0) {
        out_ << printf_text("#  Rank %3d on %s device %d [%s] %s\n", r.rank, r.host.c_str(), r.gpu_index,
                     r.pci_bus_id.c_str(), r.gpu_name.c_str());
      } else {
        out_ << printf_text("#  Rank %3d on %s %s\n", r.rank, r.host.c_str(), r.gpu_name.c_str());
      }
    }
  }

  void row(std::span<const MeasurementRecord> placements) override {
    const MeasurementRecord& first = placements.front();
    // One block per series and point: a new header wherever anything but the size changes.
    MeasurementKey block = series_of(key_of(first));
    block.point = first.point;
    block.placement = Placement::out_of_place;
    if (block != current_block_) {
      current_block_ = block;
      std::string tags;
      if (first.point != "default") tags += "   [point " + first.point + "]";
      if (first.repeat > 0) tags += "   [repeat " + std::to_string(first.repeat + 1) + "]";
      if (!block.communicator.is_world()) tags += "   [on " + communicator_text(block.communicator) + "]";
      if (const std::string conditions = conditions_text(block); !conditions.empty()) tags += "   [" + conditions + "]";
      out_ << printf_text("#\n# %s%s\n", collective_name(first).data(), tags.c_str());
      out_ << printf_text("#%59s%-35s%s\n", "", "out-of-place", "in-place");
      out_ << printf_text("#%11s %13s %9s %7s %7s %8s %7s %7s %7s %8s %7s %7s %7s\n", "size", "count", "type", "redop",
                   "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
      out_ << printf_text("#%11s %13s %9s %7s %7s %8s %7s %7s %7s %8s %7s %7s %7s\n", "(B)", "(elements)", "", "", "",
                   "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    }
    out_ << printf_text(" %11llu %13llu %9s %7s %7d", static_cast<unsigned long long>(first.size_bytes),
                 static_cast<unsigned long long>(first.count), dtype_name(first).data(), op_name(first).data(), first.root);
    print_placement(&first);
    print_placement(placements.size() > 1 ? &placements[1] : nullptr);
    // Repeats of one size can follow each other inside a block: each row says which it is.
    if (first.repeat > 0) out_ << "   repeat " << first.repeat + 1;
    out_ << '\n';
    for (const MeasurementRecord& r : placements) print_under_compute(r);
    out_.flush();
  }

  // Preflight findings and where the results went: "# " lines among the table's own.
  void log(LogLevel level, std::string_view message) override {
    if (level != LogLevel::info) return;
    out_ << "# " << message << '\n';
    out_.flush();
  }

  void finish(const RunDocument& run) override {
    std::uint64_t wrong = 0;
    for (const auto& r : run.records) wrong += r.wrong.value_or(0);
    out_ << printf_text("#\n# %zu measurements, %llu wrong elements, status %s\n", run.records.size(),
                 static_cast<unsigned long long>(wrong), name_of(run.status).data());
    if (run.ranks.size() == 1) out_ << printf_text("# %s\n", one_rank_busbw_note(run.settings.engine).c_str());
    const std::vector<RepeatedMeasurement> folded = aggregate_repeats(run.records);
    print_folded_repeats(folded);
    print_average_busbw(folded);
    print_throttled(run);
    print_best_modes(run);
    for (const Straggler& s : run.stragglers) {
      out_ << printf_text("# STRAGGLER: rank %d (%s, GPU %d) slower than the median rank by more than 5%% in %d of %d "
                   "measurements (median +%.1f%%)\n",
                   s.rank, s.host.c_str(), s.gpu_index, s.slower_in, s.measurements, s.median_excess * 100);
    }
    out_.flush();
  }

 private:
  // With repeats: one table of every measurement folded over its repeats (the median
  // busbw and how far the repeats spread), so the blocks above need not be compared by eye.
  void print_folded_repeats(const std::vector<RepeatedMeasurement>& folded) {
    const bool repeated = std::any_of(folded.begin(), folded.end(), [](const auto& m) { return m.busbw_gbps.count > 1; });
    if (!repeated) return;
    out_ << printf_text("#\n# repeats folded: median over the repeats, spread = (max - min) / median\n");
    out_ << printf_text("#%-15s %-9s %12s %-13s %8s %14s %8s %8s  %s\n", " collective", "type", "size (B)", "placement",
                 "repeats", "busbw GB/s", "spread", "time us", "point / conditions");
    for (const RepeatedMeasurement& m : folded) {
      const MeasurementKey& k = m.key;
      std::string tags = k.point;
      if (!k.communicator.is_world()) tags += " [on " + communicator_text(k.communicator) + "]";
      if (const std::string conditions = conditions_text(k); !conditions.empty()) tags += " [" + conditions + "]";
      out_ << printf_text("# %-14s %-9s %12llu %-13s %8d %14.2f %7.1f%% %8.2f  %s\n", k.collective->name.data(),
                   k.dtype->name.data(), static_cast<unsigned long long>(k.size_bytes), name_of(k.placement).data(),
                   m.busbw_gbps.count, m.busbw_gbps.median, m.busbw_gbps.spread * 100, m.time_us.median, tags.c_str());
    }
  }

  // nccl-tests' closing "# Avg bus bandwidth", per collective and point (and conditions):
  // the mean busbw over every size and placement, repeats folded to their median.
  void print_average_busbw(const std::vector<RepeatedMeasurement>& folded) {
    std::map<std::string, std::pair<double, int>> sums;
    for (const RepeatedMeasurement& m : folded) {
      std::string label = std::string(m.key.collective->name) + " " + std::string(m.key.dtype->name);
      if (m.key.point != "default") label += " [point " + m.key.point + "]";
      if (!m.key.communicator.is_world()) label += " [on " + communicator_text(m.key.communicator) + "]";
      if (const std::string conditions = conditions_text(m.key); !conditions.empty()) label += " [" + conditions + "]";
      auto& [sum, n] = sums[label];
      sum += m.busbw_gbps.median;
      ++n;
    }
    for (const auto& [label, sum] : sums) {
      out_ << printf_text("# Avg bus bandwidth    : %10.4f GB/s  %s\n", sum.first / sum.second, label.c_str());
    }
  }

  // docs/overlap.md: a "#" line under the row per placement measured beside compute.
  void print_under_compute(const MeasurementRecord& r) {
    if (!r.under_compute) return;
    const UnderCompute& u = *r.under_compute;
    out_ << printf_text("#   under %s%s, %s: comm %.4g us x%.2f (busbw %.3g GB/s), gemm %.4g us x%.2f (%.4g TFLOP/s), "
                        "overlapped %.4g us vs serial %.4g us\n",
                        label_of(u.load).c_str(), u.site == ComputeSite::cpu_analogue ? " (CPU analogue)" : "",
                        name_of(r.placement).data(), u.comm_under_us, u.comm_slowdown(), u.busbw_under_gbps, u.compute_under_us,
                        u.compute_slowdown(), u.tflops_under, u.overlapped_wall_us, u.serial_sum_us);
  }

  // One line: how many measurements ran with a throttled GPU, and why.
  void print_throttled(const RunDocument& run) {
    int throttled = 0, read = 0;
    std::set<ThrottleReason> reasons;  // in enum order
    for (const auto& r : run.records) {
      if (!r.clocks) continue;
      ++read;
      if (r.clocks->throttle.empty()) continue;
      ++throttled;
      reasons.insert(r.clocks->throttle.begin(), r.clocks->throttle.end());
    }
    if (throttled == 0) return;
    std::string why;
    for (const ThrottleReason reason : reasons) why += (why.empty() ? "" : ", ") + std::string(name_of(reason));
    out_ << printf_text("# THROTTLED: %d of %d measurements ran with GPU clocks held down (%s); see records' clocks\n",
                 throttled, read, why.c_str());
  }

  // With several buffer/launch modes: per size the best one against the default.
  void print_best_modes(const RunDocument& run) {
    const std::vector<BestMode> best = best_modes(aggregate_repeats(run.records));
    if (best.empty()) return;
    out_ << printf_text("#\n# best mode per size (median busbw over repeats)\n");
    out_ << printf_text("#%-16s %-14s %12s %-13s %-9s %8s %9s\n", " collective", "placement", "size (B)", "buffers",
                 "launch", "busbw", "vs default");
    for (const BestMode& b : best) {
      const MeasurementKey& k = b.key;
      const std::string gain = b.default_busbw_gbps > 0
                                   ? percent_change(b.busbw_gbps / b.default_busbw_gbps)
                                   : std::string("n/a");
      std::string tags = k.point == "default" ? "" : "   [point " + k.point + "]";
      if (!k.communicator.is_world()) tags += "   [on " + communicator_text(k.communicator) + "]";
      if (const std::string footprint = footprint_text(k); !footprint.empty()) tags += "   [" + footprint + "]";
      out_ << printf_text("# %-15s %-14s %12llu %-13s %-9s %8.2f %9s%s\n", k.collective->name.data(),
                   name_of(k.placement).data(), static_cast<unsigned long long>(k.size_bytes), name_of(k.buffers).data(),
                   name_of(k.launch).data(), b.busbw_gbps, gain.c_str(), tags.c_str());
    }
  }

  void print_placement(const MeasurementRecord* r) {
    if (!r) {
      out_ << printf_text(" %8s %7s %7s %7s", "n/a", "n/a", "n/a", "n/a");
      return;
    }
    const std::string wrong = r->wrong ? std::to_string(*r->wrong) : "N/A";
    out_ << printf_text(" %8.2f %7.2f %7.2f %7s", r->time_us.max, r->algbw_gbps, r->busbw_gbps, wrong.c_str());
  }

  std::ostream& out_;
  std::optional<MeasurementKey> current_block_;
};

}  // namespace

std::unique_ptr<ResultSink> make_terminal_table(std::ostream& out) { return std::make_unique<TerminalTable>(out); }

std::string one_rank_busbw_note(std::optional<EngineKind> engine) {
  // busbw = algbw x nccl-tests' factor for n ranks: (n-1)/n and 2(n-1)/n are 0 at n = 1,
  // and the factor-1 collectives keep busbw = algbw, as nccl-tests prints them.
  const std::string alone = engine == EngineKind::nccl ? "one GPU" : "one process";
  return "one rank: busbw is 0 by definition for all_gather, reduce_scatter, all_reduce and alltoall (factor "
         "(n-1)/n) and equals algbw for broadcast, reduce and sendrecv (factor 1); nothing crosses a link, so "
         "algbw and time are what " + alone + " shows alone (an in-place call may move nothing). For a real busbw "
         "run two or more ranks: mpirun -np 2, or srun -N 2 across nodes";
}

}  // namespace ncclsweep
