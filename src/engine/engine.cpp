#include "engine/engine.hpp"

namespace ncclsweep {

std::string_view name_of(Placement p) { return p == Placement::in_place ? "in_place" : "out_of_place"; }

}  // namespace ncclsweep
