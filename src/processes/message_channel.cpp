#include "processes/message_channel.hpp"

#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

// false when the peer closed before the first byte; throws on a short read after it.
bool read_exactly(int fd, void* buffer, std::size_t size) {
  auto* p = static_cast<char*>(buffer);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = read(fd, p + done, size - done);
    if (n == 0) {
      if (done == 0) return false;
      throw RuntimeFailure("read", "worker channel closed inside a message");
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ECONNRESET && done == 0) return false;
      throw RuntimeFailure("read", std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void write_exactly(int fd, const void* buffer, std::size_t size) {
  const auto* p = static_cast<const char*>(buffer);
  std::size_t done = 0;
  while (done < size) {
    // MSG_NOSIGNAL: a worker that died must not take its MPI rank down with SIGPIPE.
    const ssize_t n = send(fd, p + done, size - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw RuntimeFailure("write", std::string("worker channel: ") + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

MessageChannel::~MessageChannel() { close(); }

void MessageChannel::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

MessageChannel& MessageChannel::operator=(MessageChannel&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void MessageChannel::send(const nlohmann::json& message) {
  const std::string text = message.dump();
  // The reader refuses more; a length cut to 32 bits would frame garbage.
  if (text.size() > kMaxMessageBytes) {
    throw RuntimeFailure("write", "a worker message of " + std::to_string(text.size()) + " bytes, over the " +
                                      std::to_string(kMaxMessageBytes >> 20) + " MiB one message may have");
  }
  const auto length = static_cast<std::uint32_t>(text.size());
  write_exactly(fd_, &length, sizeof length);
  write_exactly(fd_, text.data(), text.size());
}

bool MessageChannel::wait_readable(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, std::min<std::int64_t>(left.count(), INT32_MAX))));
    if (n > 0) return true;  // readable, closed or broken: receive() tells which
    if (n == 0) return false;
    if (errno != EINTR) throw RuntimeFailure("poll", std::strerror(errno));
  }
}

std::optional<nlohmann::json> MessageChannel::receive() {
  std::uint32_t length = 0;
  if (!read_exactly(fd_, &length, sizeof length)) return std::nullopt;
  if (length > kMaxMessageBytes) throw RuntimeFailure("read", "worker message of " + std::to_string(length) + " bytes");
  std::string text(length, '\0');
  if (!read_exactly(fd_, text.data(), length)) throw RuntimeFailure("read", "worker channel closed inside a message");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw RuntimeFailure("read", std::string("malformed worker message: ") + e.what());
  }
}

}  // namespace ncclsweep
