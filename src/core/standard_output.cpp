#include "core/standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

namespace ncclsweep {

// 4 KiB, as stdio buffers a pipe: output reaches a log in the pieces it always did.
CheckedStandardOutput::Buffer::Buffer(bool line_buffered) : space_(4096), line_buffered_(line_buffered) {
  setp(space_.data(), space_.data() + space_.size());
}

bool CheckedStandardOutput::Buffer::drain() {
  const char* data = pbase();
  std::size_t left = static_cast<std::size_t>(pptr() - pbase());
  setp(space_.data(), space_.data() + space_.size());
  if (error_ != 0) return false;  // the stream has failed: what follows is dropped, not half-written
  while (left > 0) {
    const ssize_t written = ::write(STDOUT_FILENO, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  return true;
}

CheckedStandardOutput::Buffer::int_type CheckedStandardOutput::Buffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  if (line_buffered_ && traits_type::to_char_type(c) == '\n' && !drain()) return traits_type::eof();
  return c;
}

std::streamsize CheckedStandardOutput::Buffer::xsputn(const char* data, std::streamsize size) {
  std::streamsize done = 0;
  while (done < size) {
    if (pptr() == epptr() && !drain()) return done;
    const std::streamsize room = epptr() - pptr();
    const std::streamsize chunk = std::min(room, size - done);
    std::memcpy(pptr(), data + done, static_cast<std::size_t>(chunk));
    pbump(static_cast<int>(chunk));
    done += chunk;
  }
  if (line_buffered_ && std::memchr(data, '\n', static_cast<std::size_t>(size)) != nullptr && !drain()) return 0;
  return done;
}

int CheckedStandardOutput::Buffer::sync() { return drain() ? 0 : -1; }

CheckedStandardOutput::CheckedStandardOutput()
    : buffer_(::isatty(STDOUT_FILENO) == 1), previous_(std::cout.rdbuf(&buffer_)) {}

CheckedStandardOutput::~CheckedStandardOutput() {
  std::cout.flush();
  std::cout.rdbuf(previous_);
}

std::string CheckedStandardOutput::failure() {
  std::cout.flush();
  if (buffer_.error() != 0) return std::strerror(buffer_.error());
  return std::cout ? "" : "a write to it failed";
}

bool standard_output_open() { return ::fcntl(STDOUT_FILENO, F_GETFD) != -1 || errno != EBADF; }

}  // namespace ncclsweep
