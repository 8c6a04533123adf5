#pragma once
// Length-prefixed JSON messages over a socket between an MPI rank and its worker
// process. Owns the descriptor.
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

namespace ncclsweep {

class MessageChannel {
 public:
  explicit MessageChannel(int fd) : fd_(fd) {}
  ~MessageChannel();
  MessageChannel(MessageChannel&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  MessageChannel& operator=(MessageChannel&& other) noexcept;
  MessageChannel(const MessageChannel&) = delete;
  MessageChannel& operator=(const MessageChannel&) = delete;

  // Throws RuntimeFailure when the peer is gone.
  void send(const nlohmann::json& message);
  // The next message, or nothing when the peer closed its end (exited or crashed).
  // Throws RuntimeFailure on a malformed frame.
  std::optional<nlohmann::json> receive();
  // True once a message (or the end of the stream) can be read; false when `limit`
  // passed first. The MPI rank bounds how long a worker may go without a word.
  bool wait_readable(std::chrono::milliseconds limit);
  int fd() const { return fd_; }
  // Closes this end now; the peer reads the end of the stream.
  void close();

 private:
  int fd_;
};

// Largest message accepted: a row of records is far smaller, and a worker's start with
// the most calls a plan may hold (kMaxPlannedCalls) takes about 34 MB.
inline constexpr std::uint32_t kMaxMessageBytes = 128u << 20;

}  // namespace ncclsweep
