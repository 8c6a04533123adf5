#include "core/stall_watch.hpp"

#include <algorithm>

namespace ncclsweep {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

StallWatch::StallWatch(double limit_s, OnStall on_stall)
    : on_stall_(std::move(on_stall)), limit_s_(limit_s), thread_([this] { run(); }) {}

StallWatch::~StallWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

double StallWatch::limit_s() const { return limit_s_.load(); }

void StallWatch::set_limit(double seconds) {
  limit_s_.store(seconds);
  changed_.notify_all();  // the next look comes at the new limit's pace
}

void StallWatch::enter(const char* call) {
  if (depth_.fetch_add(1) > 0) return;
  since_ns_.store(now_ns());
  call_.store(call);
  calls_.fetch_add(1);
}

void StallWatch::leave() {
  if (depth_.fetch_sub(1) == 1) call_.store(nullptr);
}

void StallWatch::run() {
  std::uint64_t reported = 0;   // the call (its number) already reported
  std::uint64_t restarted = 0;  // the call whose clock restarted when this process resumed
  std::int64_t restarted_at = 0;
  std::int64_t last_look = now_ns();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    // Looks ten times per limit, at most once a second: a stall is seen within a tenth of
    // its limit (a second at most) after it passes.
    const double before = limit_s_.load();
    const double pause = before > 0 ? std::clamp(before / 10, 0.001, 1.0) : 1.0;
    changed_.wait_for(lock, std::chrono::duration<double>(pause));
    const std::int64_t now = now_ns();
    // A look far later than asked: this process itself was stopped (a job suspended and
    // resumed, a debugger), so its call has not been waiting for the others all along.
    const bool was_stopped = static_cast<double>(now - last_look) * 1e-9 > std::max(2.0, 5 * pause);
    last_look = now;
    const double limit = limit_s_.load();
    if (stopping_ || limit <= 0) continue;
    const std::uint64_t number = calls_.load();
    const char* const call = call_.load();
    std::int64_t since = since_ns_.load();
    if (call == nullptr || number == reported || calls_.load() != number) continue;  // none, told, or a new one
    if (was_stopped) {
      restarted = number;
      restarted_at = now;
    }
    if (restarted == number) since = std::max(since, restarted_at);
    const double waited = static_cast<double>(now - since) * 1e-9;
    if (waited < limit) continue;
    reported = number;
    const std::string name = call;
    lock.unlock();
    on_stall_(name, waited);
    lock.lock();
  }
}

StallWatch::Scope::Scope(StallWatch* watch, const char* call) : watch_(watch) {
  if (watch_) watch_->enter(call);
}

StallWatch::Scope::~Scope() {
  if (watch_) watch_->leave();
}

StallWatch::Limit::Limit(StallWatch& watch, double seconds) : watch_(watch), before_(watch.limit_s()) {
  watch_.set_limit(seconds);
}

StallWatch::Limit::~Limit() { watch_.set_limit(before_); }

}  // namespace ncclsweep
