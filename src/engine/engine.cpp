#include "engine/engine.hpp"

#include <cstring>

#include "core/errors.hpp"

namespace ncclsweep {

std::string_view name_of(Placement p) { return p == Placement::in_place ? "in_place" : "out_of_place"; }

void Engine::split(const std::vector<int>& colors) {
  if (colors.empty()) return;
  throw UsageError("the " + std::string(name()) + " engine cannot run collectives on sub-communicator groups",
                   "drop groups, or use the nccl or mpi engine");
}

std::vector<double> Coordinator::all_values(double value) {
  std::vector<double> values(static_cast<std::size_t>(size()));
  for (int root = 0; root < size(); ++root) {
    double v = root == rank() ? value : 0.0;
    broadcast(std::as_writable_bytes(std::span(&v, 1)), root);
    values[static_cast<std::size_t>(root)] = v;
  }
  return values;
}

}  // namespace ncclsweep
