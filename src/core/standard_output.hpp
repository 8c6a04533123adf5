#pragma once
// std::cout, checked: every command prints through std::cout, and a write that fails
// there (/dev/full, a full disk under `> file`, a reader gone) would otherwise be lost
// without a word and the command would exit 0. While a CheckedStandardOutput lives,
// std::cout writes to file descriptor 1 with write(2) and keeps the first error, so main
// can end with exit 3 and the system's reason.
#include <streambuf>
#include <string>
#include <vector>

namespace ncclsweep {

class CheckedStandardOutput {
 public:
  CheckedStandardOutput();   // installs itself as std::cout's buffer
  ~CheckedStandardOutput();  // flushes and gives std::cout its own buffer back
  CheckedStandardOutput(const CheckedStandardOutput&) = delete;
  CheckedStandardOutput& operator=(const CheckedStandardOutput&) = delete;

  // Flushes std::cout; "" when everything reached fd 1, else why it did not
  // ("No space left on device").
  std::string failure();

 private:
  class Buffer final : public std::streambuf {
   public:
    explicit Buffer(bool line_buffered);
    int error() const { return error_; }

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* data, std::streamsize size) override;
    int sync() override;

   private:
    bool drain();  // writes what the buffer holds; false once a write failed
    std::vector<char> space_;
    bool line_buffered_;  // a terminal sees each line as it ends, as stdio does
    int error_ = 0;       // the first failed write's errno
  };
  Buffer buffer_;
  std::streambuf* previous_;
};

// Whether file descriptor 1 is open: with stdout closed, the next file ncclsweep opens
// would become fd 1 and receive its output.
bool standard_output_open();

}  // namespace ncclsweep
