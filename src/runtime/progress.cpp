#include "runtime/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <stop_token>
#include <thread>

#include "core/errors.hpp"
#include "core/printf_text.hpp"
#include "plan/sweep_estimate.hpp"

namespace ncclsweep {
namespace {

// Whether rank 0's output reaches a terminal. Open MPI gives every rank's stdout a
// pseudo-terminal of its own, even when mpirun's output goes to a file, so under Open MPI
// the launcher's stdout decides (the parent process, for ranks on mpirun's own node).
bool output_reaches_terminal() {
  if (!isatty(STDOUT_FILENO)) return false;
  if (const char* term = std::getenv("TERM"); term && std::string(term) == "dumb") return false;
  if (!std::getenv("OMPI_COMM_WORLD_SIZE")) return true;
  std::error_code error;
  const std::string launcher_stdout =
      std::filesystem::read_symlink("/proc/" + std::to_string(getppid()) + "/fd/1", error).string();
  if (error) return false;  // a remote launcher daemon: plain lines are the safe side
  return launcher_stdout.rfind("/dev/pts/", 0) == 0 || launcher_stdout.rfind("/dev/tty", 0) == 0;
}

bool colour_allowed() {
  const char* no_colour = std::getenv("NO_COLOR");  // no-color.org: set and non-empty
  return !no_colour || !*no_colour;
}

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  if (s < 60) return printf_text("%lds", s);
  if (s < 3600) return printf_text("%ldm%02lds", s / 60, s % 60);
  return printf_text("%ldh%02ldm", s / 3600, (s % 3600) / 60);
}

}  // namespace

ProgressMode progress_mode(ProgressSetting setting) {
  switch (setting) {
    case ProgressSetting::off: return ProgressMode::off;
    case ProgressSetting::lines: return ProgressMode::lines;
    case ProgressSetting::live: return ProgressMode::live;
    case ProgressSetting::automatic: break;
  }
  return output_reaches_terminal() ? ProgressMode::live : ProgressMode::lines;
}

ProgressPlan progress_plan(const MeasurementPlan& plan, const RunSpec& spec, const std::vector<WorkerGroup>& groups) {
  const EstimateModel model;
  ProgressPlan progress;
  progress.spec = spec;
  progress.groups = std::max<int>(1, static_cast<int>(groups.size()));
  for (const WorkerGroup& group : groups) {
    for (const PointSpec& point : group.points) progress.points.push_back({point.label, group.index});
  }
  if (progress.points.empty()) progress.points.push_back({"default", 0});
  const std::size_t repeats = static_cast<std::size_t>(std::max(spec.repeats, 1));
  for (const PlannedCall& planned : plan.calls) {
    const std::size_t placements = planned.call.kind->supports_in_place ? 2 : 1;
    progress.measurements_per_point += repeats * placements;
    progress.point_measurements_s += static_cast<double>(repeats * placements) *
                                     estimate_measurement_seconds(planned.total_bytes, spec, model);
  }
  // The mpi engine measures in the launching process: no workers to start.
  progress.group_start_s = spec.engine == EngineKind::mpi ? 0.0 : model.worker_start_s;
  progress.point_start_s = spec.engine == EngineKind::mpi ? 0.0 : model.reinit_s;
  return progress;
}

ProgressTracker::ProgressTracker(ProgressPlan plan) : plan_(std::move(plan)) {}

void ProgressTracker::add_resumed(const std::vector<MeasurementRecord>& records) {
  for (const MeasurementRecord& r : records) {
    ++done_per_point_[r.point];
    ++resumed_;
    resumed_estimate_s_ += estimate_measurement_seconds(r.size_bytes, plan_.spec);
  }
}

std::string ProgressTracker::add(const std::vector<MeasurementRecord>& records) {
  std::string left;
  for (const MeasurementRecord& r : records) {
    if (r.point != current_) {
      left = current_;  // the run moved on: the point before is left (finished, failed or interleaved)
      current_ = r.point;
      ++points_seen_;
    }
    ++done_per_point_[r.point];
    ++measured_;
    measured_estimate_s_ += estimate_measurement_seconds(r.size_bytes, plan_.spec);
  }
  // A point whose every measurement is in is finished now, before the next one starts.
  if (!current_.empty() && done_per_point_[current_] >= plan_.measurements_per_point) return current_;
  return left;
}

int ProgressTracker::index_of(const std::string& label) const {
  for (std::size_t i = 0; i < plan_.points.size(); ++i) {
    if (plan_.points[i].label == label) return static_cast<int>(i);
  }
  return -1;
}

double ProgressTracker::estimated_total_s() const {
  const double points = static_cast<double>(plan_.points.size());
  return plan_.groups * plan_.group_start_s + points * (plan_.point_start_s + plan_.point_measurements_s);
}

ProgressSnapshot ProgressTracker::snapshot_of(const std::string& label, double elapsed_s) const {
  ProgressSnapshot s;
  s.points = static_cast<int>(plan_.points.size());
  s.groups = plan_.groups;
  const int index = std::max(index_of(label), 0);
  s.point = index + 1;
  s.group = plan_.points[static_cast<std::size_t>(index)].group + 1;
  s.done = resumed_ + measured_;
  s.total = plan_.points.size() * plan_.measurements_per_point;
  s.elapsed_s = elapsed_s;
  // What this run has done, in the plan's estimated seconds: its measurements, and the
  // worker starts and re-inits of the groups and points it has reached.
  std::set<int> groups_reached;
  for (const auto& [point, count] : done_per_point_) {
    if (const int i = index_of(point); i >= 0 && count > 0) groups_reached.insert(plan_.points[static_cast<std::size_t>(i)].group);
  }
  const double done_estimate_s = measured_estimate_s_ + static_cast<double>(groups_reached.size()) * plan_.group_start_s +
                                 points_seen_ * plan_.point_start_s;
  const double left_estimate_s = std::max(0.0, estimated_total_s() - resumed_estimate_s_ - done_estimate_s);
  // Corrected by the measured rate: how long the work so far took against its estimate.
  const double rate = measured_ > 0 && done_estimate_s > 0 ? elapsed_s / done_estimate_s : 1.0;
  s.left_s = s.done >= s.total ? 0.0 : left_estimate_s * rate;
  return s;
}

ProgressSnapshot ProgressTracker::snapshot(double elapsed_s) const {
  return snapshot_of(current_.empty() ? plan_.points.front().label : current_, elapsed_s);
}

std::string format_progress(const ProgressSnapshot& s) {
  return "point " + std::to_string(s.point) + "/" + std::to_string(s.points) + " (isolation group " +
         std::to_string(s.group) + "/" + std::to_string(s.groups) + "), " + std::to_string(s.done) + "/" +
         std::to_string(s.total) + " measurements, elapsed " + format_duration(s.elapsed_s) + ", left ~" +
         format_duration(s.left_s);
}

namespace {

class ProgressDisplay final : public ResultSink {
 public:
  ProgressDisplay(std::unique_ptr<ResultSink> table, ProgressPlan plan, ProgressMode mode, std::ostream& out)
      : table_(std::move(table)), tracker_(std::move(plan)), mode_(mode), out_(out), colour_(colour_allowed()),
        start_(std::chrono::steady_clock::now()) {}

  ~ProgressDisplay() override { stop_ticker(); }

  void begin(const RunDocument& run) override {
    {
      std::lock_guard lock(mutex_);
      table_->begin(run);
      begun_ = true;
      tracker_.add_resumed(run.records);
      if (mode_ == ProgressMode::live) draw();
    }
    // Between measurements (a communicator init at scale takes minutes) the line still ticks.
    if (mode_ == ProgressMode::live) {
      ticker_ = std::jthread([this](std::stop_token stop) {
        std::mutex sleep_mutex;
        std::unique_lock sleep_lock(sleep_mutex);
        while (!wake_.wait_for(sleep_lock, stop, std::chrono::seconds(1), [] { return false; })) {
          if (stop.stop_requested()) return;
          std::lock_guard lock(mutex_);
          draw();
        }
      });
    }
  }

  void row(std::span<const MeasurementRecord> placements) override {
    std::lock_guard lock(mutex_);
    clear();
    table_->row(placements);
    const std::string finished = tracker_.add({placements.begin(), placements.end()});
    if (mode_ == ProgressMode::lines && !finished.empty()) {
      plain_line(finished);
    } else if (mode_ == ProgressMode::lines && tracker_.points() == 1) {
      // One point (a plain run): its only "point finished" line would be the last, so
      // every measurement says how far the run is.
      plain_line(tracker_.current_point());
    }
    if (mode_ == ProgressMode::live) draw();
  }

  void finish(const RunDocument& run) override {
    stop_ticker();
    std::lock_guard lock(mutex_);
    if (mode_ == ProgressMode::lines && !tracker_.current_point().empty()) plain_line(tracker_.current_point());
    clear();
    finished_ = true;
    table_->finish(run);
  }

  // The table's lines never land inside the progress line: it is cleared, and redrawn
  // while the run goes.
  void log(LogLevel level, std::string_view message) override {
    std::lock_guard lock(mutex_);
    clear();
    table_->log(level, message);
    if (mode_ == ProgressMode::live && begun_ && !finished_) draw();
  }

 private:
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  // Once per point and count: a point left and later finished is said twice, never the same twice.
  void plain_line(const std::string& label) {
    const ProgressSnapshot s = tracker_.snapshot_of(label, elapsed_s());
    if (said_.count(label) && said_[label] == s.done) return;
    said_[label] = s.done;
    out_ << "# progress: " << format_progress(s) << '\n';
    out_.flush();
  }

  void draw() {
    const std::string text = format_progress(tracker_.snapshot(elapsed_s()));
    // \r and erase-line: the line is redrawn in place; the cursor stays at its end.
    if (colour_) {
      out_ << "\r\033[K\033[36mncclsweep: " << text << "\033[0m";
    } else {
      out_ << "\r\033[Kncclsweep: " << text;
    }
    out_.flush();
    drawn_ = true;
  }

  void clear() {
    if (!drawn_) return;
    out_ << "\r\033[K";
    drawn_ = false;
  }

  void stop_ticker() {
    if (!ticker_.joinable()) return;
    ticker_.request_stop();
    ticker_.join();
  }

  std::unique_ptr<ResultSink> table_;
  ProgressTracker tracker_;
  const ProgressMode mode_;
  std::ostream& out_;
  const bool colour_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;  // the table and the line share one stream
  bool drawn_ = false;
  bool begun_ = false, finished_ = false;  // the line is drawn only in between
  std::map<std::string, std::size_t> said_;
  std::condition_variable_any wake_;
  std::jthread ticker_;  // last: stopped and joined before the members it uses go
};

}  // namespace

std::unique_ptr<ResultSink> make_progress_display(std::unique_ptr<ResultSink> table, ProgressPlan plan,
                                                  ProgressMode mode, std::ostream& out) {
  if (mode == ProgressMode::off) return table;
  return std::make_unique<ProgressDisplay>(std::move(table), std::move(plan), mode, out);
}

}  // namespace ncclsweep
