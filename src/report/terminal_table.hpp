#pragma once
#include <cstdio>
#include <memory>

#include "results/result_sink.hpp"

namespace ncclsweep {

// The nccl-tests-style table: size, count, type, redop, root, then time, algbw, busbw
// and #wrong for out-of-place and in-place; one block per collective.
std::unique_ptr<ResultSink> make_terminal_table(std::FILE* out);

}  // namespace ncclsweep
