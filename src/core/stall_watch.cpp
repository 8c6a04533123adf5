#include "core/stall_watch.hpp"

namespace ncclsweep {

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

double StallWatch::limit_s() const {
  const std::lock_guard lock(mutex_);
  return limit_s_;
}

void StallWatch::set_limit(double seconds) {
  {
    const std::lock_guard lock(mutex_);
    limit_s_ = seconds;
  }
  changed_.notify_all();
}

void StallWatch::enter(const char* call) {
  {
    const std::lock_guard lock(mutex_);
    if (depth_++ > 0) return;
    call_ = call;
    since_ = std::chrono::steady_clock::now();
    reported_ = false;
  }
  changed_.notify_all();
}

void StallWatch::leave() {
  const std::lock_guard lock(mutex_);
  if (--depth_ == 0) call_ = nullptr;
}

void StallWatch::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (call_ == nullptr || limit_s_ <= 0 || reported_) {
      changed_.wait(lock);
      continue;
    }
    const auto deadline = since_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>(limit_s_));
    const char* const watched = call_;
    const auto started = since_;
    if (changed_.wait_until(lock, deadline) == std::cv_status::no_timeout) continue;
    // Still the same call, past the limit: it is stuck.
    if (!stopping_ && call_ == watched && since_ == started) {
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - since_;
      const std::string name = watched;
      reported_ = true;
      lock.unlock();
      on_stall_(name, waited.count());
      lock.lock();
    }
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
