#include "processes/worker_pool.hpp"

#include <algorithm>
#include <chrono>

#include "core/errors.hpp"
#include "core/printf_text.hpp"
#include "processes/worker_environment.hpp"

namespace ncclsweep {

struct WorkerPool::Slot {
  int group = 0;
  std::unique_ptr<WorkerLink> link;
  std::unique_ptr<WorkerDataPlane> plane;
  std::uint64_t used = 0;               // the pool's clock at its last request
  std::int64_t free_before = -1;        // the pool's lowest free memory before it started
  bool measured = false;                // it reported after a point at least once
};

nlohmann::json relay_step_reply(const CombinedStep& combined) {
  nlohmann::json reply{{"type", "step"}, {"step", combined.step}};
  if (!combined.gathered.empty()) reply["gathered"] = combined.gathered;
  return reply;
}

WorkerPool::WorkerPool(RankGroup& ranks, WorkerPoolConfig config, WorkerStarter starter, PoolCallbacks callbacks)
    : ranks_(ranks), config_(std::move(config)), starter_(std::move(starter)), callbacks_(std::move(callbacks)) {}

WorkerPool::~WorkerPool() {
  while (!slots_.empty()) stop_slot(slots_.size() - 1);
  reap();
}

WorkerPool::Slot* WorkerPool::find(int group) {
  for (auto& slot : slots_) {
    if (slot->group == group) return slot.get();
  }
  return nullptr;
}

bool WorkerPool::warm(int group) const {
  return std::any_of(slots_.begin(), slots_.end(), [group](const auto& s) { return s->group == group; });
}

void WorkerPool::stop_slot(std::size_t index) {
  std::unique_ptr<Slot> slot = std::move(slots_[index]);
  slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(index));
  try {
    slot->link->channel().send(message(StopWorker{}));
  } catch (const RuntimeFailure&) {
    // Gone already: reaping says how it ended.
  }
  exiting_.push_back(std::move(slot->link));
}

void WorkerPool::stop(int group) {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i]->group == group) return stop_slot(i);
  }
}

void WorkerPool::stop_all() {
  while (!slots_.empty()) stop_slot(slots_.size() - 1);
}

void WorkerPool::reap() {
  const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(config_.deadline_s * 1000));
  for (auto& link : exiting_) {
    const WorkerExit how = link->wait_for(limit);
    if (!how.clean() && callbacks_.on_note) {
      callbacks_.on_note("rank " + std::to_string(ranks_.rank()) + ": a worker ended with " + how.text() +
                         " after delivering all its results");
    }
  }
  exiting_.clear();
}

void WorkerPool::make_room() {
  const auto short_of_memory = [this] {
    return min_free_ >= 0 && worker_cost_ > 0 && static_cast<double>(min_free_) < kMemoryHeadroom * static_cast<double>(worker_cost_);
  };
  while (!slots_.empty() && (exclusive_gpu_ || slots_.size() >= kMaxWarmGroups || short_of_memory())) {
    const auto lru = std::min_element(slots_.begin(), slots_.end(), [](const auto& a, const auto& b) { return a->used < b->used; });
    stop_slot(static_cast<std::size_t>(lru - slots_.begin()));
    // What the stopped workers held comes back once they exit: wait for it, so the next
    // report counts it free again.
    reap();
    if (short_of_memory()) min_free_ += worker_cost_;
  }
}

// The step every rank joins after its worker said something the ranks must agree on: a
// failure anywhere, the lowest free memory, a GPU that takes one process at a time.
RelayStep WorkerPool::agree(std::int64_t free_memory_bytes, bool exclusive, WorkerFailure& failure, bool& aborted) {
  RelayStep mine;
  mine.flag = exclusive ? 1 : 0;
  mine.values[0] = free_memory_bytes >= 0 ? -static_cast<double>(free_memory_bytes) : 0;
  mine.values[1] = free_memory_bytes >= 0 ? 0 : 1;  // unknown somewhere: unknown
  const RelayStep combined = ranks_.combine_relay_steps(mine).step;
  if (combined.failed()) {
    failure.failed = true;
    failure.failed_rank = combined.failed_rank;
    aborted = true;
  }
  min_free_ = combined.values[1] > 0 ? -1 : static_cast<std::int64_t>(-combined.values[0]);
  exclusive_gpu_ = exclusive_gpu_ || combined.flag != 0;
  return combined;
}

// This rank's worker failed: the others wait in its next step, which it joins as failed.
void WorkerPool::fail_step(WorkerFailure& failure, bool& aborted) {
  RelayStep failed;
  failed.failed_rank = ranks_.rank();
  const RelayStep combined = ranks_.combine_relay_steps(failed).step;
  failure.failed = true;
  failure.failed_rank = combined.failed_rank;
  aborted = true;
}

bool WorkerPool::converse(Slot& slot, WorkerFailure& failure, bool& aborted,
                          const std::function<bool(const nlohmann::json&)>& handle) {
  MessageChannel& channel = slot.link->channel();
  const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(config_.deadline_s * 1000));
  try {
    for (;;) {
      if (!channel.wait_readable(limit)) {
        // A hung worker (init or collective): kill it; below it joins the others' step as failed.
        slot.link->kill_now();
        failure.timed_out = true;
        failure.local_error = "timeout: the worker made no progress within " + printf_text("%g", config_.deadline_s) + " s";
        break;
      }
      const auto received = channel.receive();
      if (!received) break;
      const std::string type = message_type(*received);
      if (type == "step") {
        const CombinedStep combined = ranks_.combine_relay_steps(received->at("step").get<RelayStep>());
        if (combined.step.failed()) {
          failure.failed = true;
          failure.failed_rank = combined.step.failed_rank;
          aborted = true;
        }
        channel.send(relay_step_reply(combined));
      } else if (type == FabricRequest::kType) {
        if (!slot.plane) throw RuntimeFailure("worker channel", "a relayed collective from a worker without a data plane");
        channel.send(message(slot.plane->serve(expect<FabricRequest>(*received))));
      } else if (type == StopPoll::kType) {
        channel.send(message(PollAnswer{callbacks_.stop_requested && callbacks_.stop_requested()}));
      } else if (type == WorkerError::kType) {
        const WorkerError error = expect<WorkerError>(*received);
        failure.local_error = error.message;
        failure.local_status = error.status;
        failure.outcome = error.outcome;
      } else if (handle(*received)) {
        return true;
      }
    }
  } catch (const RuntimeFailure& e) {
    // A broken channel: the worker is as good as dead.
    if (failure.local_error.empty()) failure.local_error = e.call() + " failed: " + e.what();
    slot.link->kill_now();
  } catch (const nlohmann::json::exception& e) {
    if (failure.local_error.empty()) failure.local_error = std::string("malformed worker message: ") + e.what();
    slot.link->kill_now();
  }
  const WorkerExit exit = slot.link->wait();
  if (!aborted) {
    fail_step(failure, aborted);
    if (failure.local_error.empty()) failure.local_error = "worker ended with " + exit.text();
    if (failure.local_status == 0) failure.local_status = kExitRuntime;
  } else if (!exit.clean() && failure.local_error.empty() && failure.failed_rank == ranks_.rank()) {
    failure.local_error = "worker ended with " + exit.text();
  }
  return false;
}

StartResult WorkerPool::start(const WorkerGroup& group) {
  StartResult result;
  if (Slot* warm = find(group.index)) {
    warm->used = ++clock_;
    result.up = true;
    return result;
  }
  make_room();
  if (exclusive_gpu_) reap();  // else the new worker could not create its CUDA context
  WorkerStart start = config_.start;
  start.rank = ranks_.rank();
  start.ranks = ranks_.size();
  start.local_rank = ranks_.local_rank();
  start.group = group.index;
  start.nccl_log_path =
      (config_.log_dir / ("group" + std::to_string(group.index) + "-rank" + std::to_string(ranks_.rank()) + ".log")).string();
  auto slot = std::make_unique<Slot>();
  slot->group = group.index;
  slot->used = ++clock_;
  slot->free_before = min_free_;
  if (config_.data_plane && starter_.make_data_plane) slot->plane = starter_.make_data_plane();
  const auto spawned = std::chrono::steady_clock::now();
  slot->link = starter_.start_worker(
      worker_environment(config_.base_env, group.process_env, start.nccl_log_path, config_.log_tuning),
      slot->plane ? slot->plane->region_fd() : -1);
  ++starts_;
  bool aborted = false, go = false;
  try {
    slot->link->channel().send(message(start));
  } catch (const RuntimeFailure&) {
    // It died at once: converse below finds it gone and says so.
  }
  const bool answered = converse(*slot, result.failure, aborted, [&](const nlohmann::json& m) {
    const WorkerReady ready = expect<WorkerReady>(m);
    // Every rank's worker must be up before the collective on_device.
    agree(ready.free_memory_bytes, ready.device.exclusive_process, result.failure, aborted);
    result.startup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - spawned).count();
    // The workers stopped before are gone before this group times anything.
    if (!aborted) reap();
    go = !aborted && (!callbacks_.on_device || callbacks_.on_device(ready.device));
    result.refused = !aborted && !go;
    slot->link->channel().send(message(StartReply{go}));
    return true;
  });
  if (answered && go) {
    result.up = result.fresh = true;
    slots_.push_back(std::move(slot));
  } else if (answered) {
    exiting_.push_back(std::move(slot->link));  // told not to go on, it exits by itself
  }
  return result;
}

MeasureResult WorkerPool::measure(const WorkerGroup& group, const MeasureRequest& request, ResultSink* rows) {
  MeasureResult result;
  Slot* slot = find(group.index);
  if (!slot) throw RuntimeFailure("worker pool", "measure before the workers of group " + std::to_string(group.index) + " started");
  slot->used = ++clock_;
  reap();
  bool aborted = false;
  try {
    slot->link->channel().send(message(request));
  } catch (const RuntimeFailure&) {
    // Gone: converse below says how.
  }
  const bool answered = converse(*slot, result.failure, aborted, [&](const nlohmann::json& m) {
    if (message_type(m) == RowMessage::kType) {
      if (rows) rows->row(expect<RowMessage>(m).records);
      return false;
    }
    const MeasureEnd end = expect<MeasureEnd>(m);
    agree(end.free_memory_bytes, false, result.failure, aborted);
    if (!slot->measured && slot->free_before >= 0 && min_free_ >= 0) {
      worker_cost_ = std::max(worker_cost_, slot->free_before - min_free_);
    }
    slot->measured = true;
    result.outcome = end.outcome;
    return true;
  });
  result.ok = answered && !aborted;
  if (!result.ok) {
    // A failure anywhere ends the group on every rank: the next request starts afresh.
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].get() != slot) continue;
      if (answered) {
        stop_slot(i);
      } else {
        slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(i));  // reaped already
      }
      break;
    }
  }
  return result;
}

}  // namespace ncclsweep
