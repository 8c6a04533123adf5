#pragma once

namespace ncclsweep {

// `ncclsweep worker`: started by an MPI rank (never by hand) with the channel on
// descriptor 3; runs one isolation group's points and exits.
int worker_main();

}  // namespace ncclsweep
