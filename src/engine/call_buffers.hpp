#pragma once
// What every engine works out the same way before a call: how many elements each of a
// rank's buffers holds, and where the call reads and writes inside them.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/buffer_footprint.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {

// Where one call reads and writes, inside buffers an engine owns.
struct CallBuffers {
  std::byte* send;   // what the call is passed as its send buffer
  std::byte* recv;   // ... and as its receive buffer
  std::byte* input;  // where this rank's input lies (send, or inside recv in place)
  std::byte* output;  // where this rank's result lies
  std::uint64_t input_elements;
  std::uint64_t output_elements;
  BufferSpan span;  // the allocation and the offsets calls rotate through
  // The same call `offset` bytes further into both buffers.
  CallBuffers at(Bytes offset) const {
    CallBuffers shifted = *this;
    for (std::byte** p : {&shifted.send, &shifted.recv, &shifted.input, &shifted.output}) *p += offset;
    return shifted;
  }
};

// A rank's element counts for `call` on `ranks` ranks, and the bytes its receive buffer
// needs (in place it holds the input too).
struct CallSizes {
  std::size_t element_bytes;
  std::uint64_t send_elements, recv_elements;
  bool in_place;
  std::size_t send_bytes() const { return static_cast<std::size_t>(send_elements) * element_bytes; }
  std::size_t recv_bytes() const {
    return static_cast<std::size_t>(in_place ? std::max(send_elements, recv_elements) : recv_elements) * element_bytes;
  }
  // Before in-place adjustments: input at the start of send, output at the start of recv.
  CallBuffers buffers_in(std::byte* send, std::byte* recv, const BufferSpan& span) const {
    return {send, recv, send, recv, send_elements, recv_elements, span};
  }
};

inline CallSizes call_sizes(const CollectiveCall& call, int ranks) {
  return {call.dtype->bytes, send_elements(*call.kind, call.count, ranks), recv_elements(*call.kind, call.count, ranks),
          call.placement == Placement::in_place};
}

}  // namespace ncclsweep
