#pragma once
// ncclConfig_t fields by their snake_case names (docs/nccl-settings.md), as sweep
// files' `config:` axes name them; which exist depends on the NCCL headers built against.
#include <nccl.h>

#include "engine/engine.hpp"

namespace ncclsweep {

// Sets `setting` on `config`. Text fields point into `setting`, which must outlive the
// init. Throws UsageError for a field this NCCL lacks or a value of the wrong kind.
void apply_config_field(const ConfigSetting& setting, ncclConfig_t& config);

}  // namespace ncclsweep
