#pragma once
// Where ncclsweep finds the data it ships: configs/models, configs/workloads,
// configs/systems and the example sweeps/. In order:
//   NCCLSWEEP_DATA_DIR, when set;
//   ./configs/... in the current directory (a checkout, or the user's own copy);
//   <prefix>/share/ncclsweep beside an installed <prefix>/bin/ncclsweep (cmake --install, .deb);
//   the source tree this binary was built from.
// A directory given on the command line (--models-dir, --systems) or NCCLSWEEP_MODELS_DIR
// comes before all of these.
#include <filesystem>
#include <string>

namespace ncclsweep {

// The directory holding configs/ and sweeps/ when NCCLSWEEP_DATA_DIR is unset and the
// current directory has none: the installed share/ncclsweep, else the source tree.
std::filesystem::path installed_data_directory();

// DIR/configs/<kind> under the first of the places above that has it ("models", "systems").
std::string configs_directory(const std::string& kind);

// The model catalog: `given` (--models-dir), NCCLSWEEP_MODELS_DIR, else configs_directory("models").
std::string models_directory(const std::string& given = {});

}  // namespace ncclsweep
