#pragma once
// How a measured call gets its buffers and how it is issued: axes of a measurement next to
// collective, dtype and size (docs/performance.md, "Buffer and launch modes"). The defaults are what nccl-tests does.
#include <string>
#include <string_view>
#include <vector>

#include "core/name_table.hpp"

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

inline constexpr NameTable<BufferMode, 3> kBufferModeNames{"buffer mode",
                                                            {{{BufferMode::cuda_malloc, "cuda-malloc"},
                                                              {BufferMode::nccl_register, "nccl-register"},
                                                              {BufferMode::nccl_window, "nccl-window"}}}};
inline constexpr NameTable<LaunchMode, 3> kLaunchModeNames{
    "launch mode", {{{LaunchMode::stream, "stream"}, {LaunchMode::graph, "graph"}, {LaunchMode::blocking, "blocking"}}}};
inline constexpr NameTable<Placement, 2> kPlacementNames{
    "placement", {{{Placement::out_of_place, "out_of_place"}, {Placement::in_place, "in_place"}}}};

constexpr std::string_view name_of(BufferMode mode) { return kBufferModeNames.name(mode); }
constexpr std::string_view name_of(LaunchMode mode) { return kLaunchModeNames.name(mode); }
constexpr std::string_view name_of(Placement placement) { return kPlacementNames.name(placement); }

// One name; UsageError naming it and the valid names.
inline BufferMode parse_buffer_mode(std::string_view name) { return kBufferModeNames.parse(name); }
inline LaunchMode parse_launch_mode(std::string_view name) { return kLaunchModeNames.parse(name); }
inline Placement parse_placement(std::string_view name) { return kPlacementNames.parse(name); }

// Comma-separated lists ("cuda-malloc,nccl-register"), duplicates dropped; UsageError
// naming the bad entry and the valid names.
std::vector<BufferMode> parse_buffer_mode_list(const std::string& text);
std::vector<LaunchMode> parse_launch_mode_list(const std::string& text);

}  // namespace ncclsweep
