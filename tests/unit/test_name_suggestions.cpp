// Every name list of the command line suggests the nearest valid name for a typo, as the
// sweep file's keys and variables do.
#include "catch_compat.hpp"
#include "core/call_modes.hpp"
#include "core/repeat_order.hpp"
#include "spec/comm_split.hpp"
#include "spec/run_spec.hpp"
#include "runtime/engine_registry.hpp"

using namespace ncclsweep;

TEST_CASE("a misspelt name on the command line gets the nearest valid one") {
  CHECK_THAT(usage_error_text([] { parse_collective_list("all_reduce,all_gathr"); }),
             ContainsSubstring("unknown collective 'all_gathr' (did you mean all_gather?)"));
  CHECK_THAT(usage_error_text([] { parse_dtype_list("flaot32"); }),
             ContainsSubstring("unknown dtype 'flaot32' (did you mean float32?)"));
  CHECK_THAT(usage_error_text([] { parse_dtype_list("bf61"); }), ContainsSubstring("(did you mean bf16?)"));
  CHECK_THAT(usage_error_text([] { parse_op_list("summ"); }), ContainsSubstring("unknown op 'summ' (did you mean sum?)"));
  CHECK_THAT(usage_error_text([] { parse_buffer_mode_list("cuda-maloc"); }),
             ContainsSubstring("'cuda-maloc' (did you mean cuda-malloc?)"));
  CHECK_THAT(usage_error_text([] { parse_launch_mode_list("stream,grpah"); }),
             ContainsSubstring("'grpah' (did you mean graph?)"));
  CHECK_THAT(usage_error_text([] { parse_comm_split_request("intra-nod", {"--groups", 0, 0}); }),
             ContainsSubstring("unknown groups 'intra-nod' (did you mean intra-node?)"));
  CHECK_THAT(usage_error_text([] { parse_engine("mpii"); }), ContainsSubstring("unknown engine 'mpii' (did you mean mpi?)"));
  CHECK_THAT(usage_error_text([] { parse_repeat_order("interleavd"); }),
             ContainsSubstring("unknown order 'interleavd' (did you mean interleaved?)"));
}

TEST_CASE("a word far from every name gets no suggestion, only the list") {
  const std::string message = usage_error_text([] { parse_collective_list("bandwidth"); });
  CHECK_THAT(message, ContainsSubstring("unknown collective 'bandwidth'\n"));
  CHECK_THAT(message, ContainsSubstring("use one of: all_gather"));
}
