#pragma once
// How a measured call gets its buffers and how it is issued: axes of a measurement next to
// collective, dtype and size (docs/measurement.md). The defaults are what nccl-tests does.
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

// cuda_malloc: cudaMalloc'd buffers, not registered (nccl-tests' default).
// nccl_register: ncclMemAlloc'd buffers registered with ncclCommRegister on each communicator.
// nccl_window: ncclMemAlloc'd buffers registered as symmetric windows (NCCL 2.27+).
enum class BufferMode { cuda_malloc, nccl_register, nccl_window };

// stream: calls back to back on one stream. graph: the calls of a sample captured once into
// a CUDA graph and replayed (nccl-tests -G). blocking: the host waits for each call before
// issuing the next (nccl-tests -z 1).
enum class LaunchMode { stream, graph, blocking };

// Whether the output buffer is a separate one or the input itself (nccl-tests prints both).
enum class Placement { out_of_place, in_place };

std::string_view name_of(BufferMode mode);  // "cuda-malloc", "nccl-register", "nccl-window"
std::string_view name_of(LaunchMode mode);  // "stream", "graph", "blocking"
std::string_view name_of(Placement placement);  // "out_of_place", "in_place"

// One name; UsageError naming it and the valid names.
BufferMode parse_buffer_mode(std::string_view name);
LaunchMode parse_launch_mode(std::string_view name);
Placement parse_placement(std::string_view name);

// Comma-separated lists ("cuda-malloc,nccl-register"), duplicates dropped; UsageError
// naming the bad entry and the valid names.
std::vector<BufferMode> parse_buffer_mode_list(const std::string& text);
std::vector<LaunchMode> parse_launch_mode_list(const std::string& text);

}  // namespace ncclsweep
