#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"

namespace ncclsweep {

class MpiSession;

// Engines compiled into this build, in preference order ("nccl" first when present).
std::vector<std::string_view> available_engines();

// Throws UsageError for an unknown engine, or one this build lacks, naming the others.
std::unique_ptr<Engine> make_engine(std::string_view name, MpiSession& session);

}  // namespace ncclsweep
