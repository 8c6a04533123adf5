#include "spec/run_spec.hpp"

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "core/list_text.hpp"

namespace ncclsweep {

std::vector<const CollectiveKind*> parse_collective_list(const std::string& text) {
  std::vector<const CollectiveKind*> out;
  // A collective named twice ("all_reduce,all") is measured once, where it came first.
  const auto add = [&out](const CollectiveKind* c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  for (const auto& name : split_list(text, "collective")) {
    if (name == "all") {
      for (const auto& c : all_collectives()) add(&c);
    } else {
      add(&collective(name));
    }
  }
  return out;
}

std::vector<const DataType*> parse_dtype_list(const std::string& text) {
  std::vector<const DataType*> out;
  for (const auto& name : split_list(text, "dtype")) {
    const DataType* t = &data_type(name);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

std::vector<ReduceOp> parse_op_list(const std::string& text) {
  std::vector<ReduceOp> out;
  for (const auto& name : split_list(text, "op")) {
    const ReduceOp op = reduce_op(name);
    if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  }
  return out;
}

}  // namespace ncclsweep
