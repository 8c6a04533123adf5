#pragma once
// Progress of a long run on rank 0: where it is (point i of N, isolation group g of G),
// measurements done out of the total, time elapsed and the time left - the plan's
// estimate, scaled by how fast the measurements so far ran against it.
//   live:  one line on a terminal, redrawn in place (also between measurements);
//   lines: one plain line each time the run leaves a point, no control characters
//          (Slurm output files, mpirun > file);
//   off:   --quiet.
// The display wraps the terminal table, so that a table row never lands inside the line.
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/run_options.hpp"
#include "plan/measurement_plan.hpp"
#include "results/result_sink.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {

enum class ProgressMode { off, lines, live };

// NO_COLOR and TERM=dumb are looked at by the display, not here.
ProgressMode progress_mode(ProgressSetting setting);

// What the run will do, in the order it runs, with the plan's time estimate.
struct ProgressPlan {
  struct Point {
    std::string label;
    int group = 0;  // 0-based isolation group
  };
  std::vector<Point> points;
  int groups = 1;
  std::size_t measurements_per_point = 0;  // every repeat, placement and mode
  double group_start_s = 0;                // the estimate's worker start per group
  double point_start_s = 0;                // its communicator init per point
  double point_measurements_s = 0;         // the estimate of one point's measurements
  RunSpec spec;                            // for each measurement's estimated seconds
};

ProgressPlan progress_plan(const MeasurementPlan& plan, const RunSpec& spec, const std::vector<WorkerGroup>& groups);

// Where the run stands at one moment.
struct ProgressSnapshot {
  int point = 1, points = 1;  // 1-based
  int group = 1, groups = 1;  // 1-based
  std::size_t done = 0, total = 0;
  double elapsed_s = 0;
  double left_s = 0;
};

// Pure bookkeeping: fed the records as they arrive, it answers where the run is.
class ProgressTracker {
 public:
  explicit ProgressTracker(ProgressPlan plan);
  // Measurements an earlier run recorded (--resume): done, but not part of the measured rate.
  void add_resumed(const std::vector<MeasurementRecord>& records);
  // Measurements of this run, as rows arrive. Returns the label of the point the run has
  // just left or finished (for a plain line), else "".
  std::string add(const std::vector<MeasurementRecord>& records);
  ProgressSnapshot snapshot(double elapsed_s) const;
  // The point a plain line describes: its counts as they are now.
  ProgressSnapshot snapshot_of(const std::string& label, double elapsed_s) const;
  const std::string& current_point() const { return current_; }
  std::size_t points() const { return plan_.points.size(); }

 private:
  double estimated_total_s() const;
  int index_of(const std::string& label) const;

  ProgressPlan plan_;
  std::map<std::string, std::size_t> done_per_point_;
  std::size_t resumed_ = 0, measured_ = 0;
  double resumed_estimate_s_ = 0, measured_estimate_s_ = 0;
  int points_seen_ = 0;  // point visits: each costs a communicator init
  std::string current_;
};

// "point 3/12 (group 2/4)  240/960 measurements  1m05s elapsed  ~3m20s left".
std::string format_progress(const ProgressSnapshot& s);

// The table sink wrapped with the progress display, writing to `out` (the table's stream).
std::unique_ptr<ResultSink> make_progress_display(std::unique_ptr<ResultSink> table, ProgressPlan plan,
                                                  ProgressMode mode, std::ostream& out);

}  // namespace ncclsweep
