#pragma once
// Processes a test starts in the background and signals: mpirun and its ranks.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ncclsweep::testing {

// argv started in the background (no shell), stdout and stderr to `log`; -1 when fork
// failed. With `own_process_group` it leads a process group of its own, which a test can
// signal as a terminal's Ctrl-C signals its foreground job.
pid_t start_process(const std::vector<std::string>& argv, const std::filesystem::path& log,
                    bool own_process_group = false);
// The processes whose parent is `parent` (mpirun's ranks on this host).
std::vector<pid_t> children_of(pid_t parent);
// Waits for `pid`: its exit status, or 128 + the signal that ended it.
int wait_status(pid_t pid);

}  // namespace ncclsweep::testing
