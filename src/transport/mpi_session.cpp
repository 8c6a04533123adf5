#include "transport/mpi_session.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "core/errors.hpp"
#include "core/failure_report.hpp"

namespace ncclsweep {
namespace {

// Open MPI keeps its session files in a directory under this one (opal_tmp_directory:
// the MCA parameter, then TMPDIR, TEMP, TMP, then /tmp). Where it cannot write there,
// MPI_Init prints its own text and ends the process, so it is checked first, in words that
// say what to change. Ranks of Open MPI's own mpirun use the session directory mpirun made
// (mpirun fails first, in its own words, where it cannot), so only a singleton and a
// direct launch (srun) create one.
void check_mpi_temporary_directory() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return;
  std::string variable = "OMPI_MCA_orte_tmpdir_base", dir;
  for (const char* name : {"OMPI_MCA_orte_tmpdir_base", "TMPDIR", "TEMP", "TMP"}) {
    if (const char* value = std::getenv(name); value && *value) {
      variable = name;
      dir = value;
      break;
    }
  }
  if (dir.empty()) {
    variable = "the default";
    dir = "/tmp";
  }
  // A missing directory is made (as mkdir -p would): what matters is the nearest one there.
  std::string existing = dir;
  struct stat st {};
  while (::stat(existing.c_str(), &st) != 0 && errno == ENOENT && existing.size() > 1) {
    const std::size_t slash = existing.find_last_of('/', existing.size() - 2);
    existing = slash == std::string::npos ? "." : slash == 0 ? "/" : existing.substr(0, slash);
  }
  const std::string where = existing == dir ? "" : " (it would be made in " + existing + ")";
  std::string problem;
  struct statvfs fs {};
  if (::stat(existing.c_str(), &st) != 0) {
    problem = std::string("cannot be used: ") + std::strerror(errno);
  } else if (!S_ISDIR(st.st_mode)) {
    problem = existing == dir ? "is not a directory" : "cannot be made: " + existing + " is not a directory";
  } else if (::statvfs(existing.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0) {
    problem = "is on a read-only file system" + where;
  } else if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    problem = std::string("is not writable") + where + ": " + std::strerror(errno);
  }
  if (problem.empty()) return;
  throw RuntimeFailure("MPI start-up",
                       dir + " (" + variable + "), where Open MPI keeps its session files, " + problem +
                           "; set TMPDIR to a writable local directory (export TMPDIR=/tmp) and run again");
}

}  // namespace

namespace {

[[noreturn]] void end_stalled_rank(int rank, const std::string& host, const std::string& call, double waited_s) {
  print_rank_error(rank, host,
                   message_with_fix(call + " has waited " + std::to_string(static_cast<long long>(waited_s)) +
                                        " s for the other ranks: one stopped, or its host or link is gone; this rank "
                                        "ends, and the launcher ends the others (what was measured is kept)",
                                    "find the rank that stopped (its host's log, ncclsweep locate); --timeout SECONDS "
                                    "sets how long a run's call may wait"));
  std::_Exit(kExitRuntime);
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv)
    : stall_watch_(kDefaultStallLimitS,
                   [this](const std::string& call, double waited_s) { end_stalled_rank(rank_, host_, call, waited_s); }) {
  check_mpi_temporary_directory();
  check_mpi(MPI_Init(argc, argv), "MPI_Init");
  // Errors come back as return codes so they can carry context up to main.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &world_), "MPI_Comm_dup");
  MPI_Comm_rank(world_, &rank_);
  MPI_Comm_size(world_, &size_);
  MPI_Comm local = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(world_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
            "MPI_Comm_split_type");
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_free(&local);
  // Test-only: one machine plays several hosts in the integration tests (docs/scale.md).
  // Only the name changes: local ranks still come from the real shared-memory split.
  if (const char* fake = std::getenv("NCCLSWEEP_FAKE_HOSTNAME"); fake && *fake) {
    host_ = fake;
  } else {
    char name[HOST_NAME_MAX + 1] = {};
    gethostname(name, sizeof name - 1);
    host_ = name;
  }
}

MpiSession::~MpiSession() {
  // Unwinding from a failure: leave MPI up. MPI_Finalize would wait for ranks that may
  // wait in a collective for this one; main's handler (runtime/uncaught_failure.hpp)
  // reports the failure and aborts them all.
  if (std::uncaught_exceptions() > 0) return;
  relay_.reset();  // its MPI type and op go before MPI_Finalize
  if (data_plane_ != MPI_COMM_NULL) MPI_Comm_free(&data_plane_);
  if (world_ != MPI_COMM_NULL) MPI_Comm_free(&world_);
  MPI_Finalize();
}

MPI_Comm MpiSession::data_plane_comm() {
  const StallWatch::Scope watched(&stall_watch_, "MPI_Comm_dup");
  if (data_plane_ == MPI_COMM_NULL) check_mpi(MPI_Comm_dup(world_, &data_plane_), "MPI_Comm_dup");
  return data_plane_;
}

void MpiSession::broadcast(std::span<std::byte> data, int root) {
  const StallWatch::Scope watched(&stall_watch_, "MPI_Bcast");
  check_mpi(MPI_Bcast(data.data(), static_cast<int>(data.size()), MPI_BYTE, root, world_), "MPI_Bcast");
}

int MpiSession::max_across_ranks(int value) {
  int result = 0;
  const StallWatch::Scope watched(&stall_watch_, "MPI_Allreduce");
  check_mpi(MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, world_), "MPI_Allreduce");
  return result;
}

std::string MpiSession::library_version() const {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  const std::string all(text, static_cast<std::size_t>(length));
  return all.substr(0, all.find_first_of(",\n"));
}

void MpiSession::barrier() {
  const StallWatch::Scope watched(&stall_watch_, "MPI_Barrier");
  check_mpi(MPI_Barrier(world_), "MPI_Barrier");
}

std::vector<RankTimes> MpiSession::reduce_times_each(const std::vector<double>& values) {
  // One MPI_Allreduce of a relay step, not one per statistic.
  return reduced_times(combine_relay_steps(reduce_times_step(values)).step, values.size(), size_);
}

std::vector<double> MpiSession::gather_on_first(double value) {
  std::vector<double> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  const StallWatch::Scope watched(&stall_watch_, "MPI_Gather");
  check_mpi(MPI_Gather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, world_), "MPI_Gather");
  return all;
}

std::uint64_t MpiSession::sum(std::uint64_t value) {
  std::uint64_t total = 0;
  const StallWatch::Scope watched(&stall_watch_, "MPI_Allreduce");
  check_mpi(MPI_Allreduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, world_), "MPI_Allreduce");
  return total;
}

std::vector<std::uint8_t> MpiSession::max_codes(std::vector<std::uint8_t> codes) {
  std::vector<std::uint8_t> out(codes.size());
  const StallWatch::Scope watched(&stall_watch_, "MPI_Allreduce");
  check_mpi(MPI_Allreduce(codes.data(), out.data(), static_cast<int>(codes.size()), MPI_UINT8_T, MPI_MAX, world_),
            "MPI_Allreduce");
  return out;
}

std::vector<double> MpiSession::max_each(std::vector<double> values) {
  std::vector<double> out(values.size());
  const StallWatch::Scope watched(&stall_watch_, "MPI_Allreduce");
  check_mpi(MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, world_),
            "MPI_Allreduce");
  return out;
}

std::string MpiSession::broadcast_string(std::string value, int root) {
  unsigned long long length = value.size();
  const StallWatch::Scope watched(&stall_watch_, "MPI_Bcast");
  check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, world_), "MPI_Bcast");
  value.resize(length);
  check_mpi(MPI_Bcast(value.data(), static_cast<int>(length), MPI_CHAR, root, world_), "MPI_Bcast");
  return value;
}

std::vector<std::string> MpiSession::gather(const std::string& value, int root) {
  if (value.size() > static_cast<std::size_t>(INT_MAX)) throw RuntimeFailure("MPI_Gatherv", "string too long");
  const int length = static_cast<int>(value.size());
  std::vector<int> lengths(rank_ == root ? size_ : 0);
  const StallWatch::Scope watched(&stall_watch_, "MPI_Gatherv");
  check_mpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, world_), "MPI_Gather");
  std::vector<int> offsets(lengths.size());
  std::string all;
  if (rank_ == root) {
    long long total = 0;
    for (int i = 0; i < size_; ++i) {
      offsets[i] = static_cast<int>(total);
      total += lengths[i];
    }
    if (total > INT_MAX) throw RuntimeFailure("MPI_Gatherv", "gathered strings exceed 2 GiB");
    all.resize(static_cast<std::size_t>(total));
  }
  check_mpi(MPI_Gatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, root,
                        world_),
            "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank_ == root) {
    out.reserve(static_cast<std::size_t>(size_));
    for (int i = 0; i < size_; ++i) out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), lengths[i]));
  }
  return out;
}

CombinedStep MpiSession::combine_relay_steps(const RelayStep& mine) {
  if (!relay_) relay_.emplace(world_);
  const StallWatch::Scope watched(&stall_watch_, "MPI_Allreduce");
  CombinedStep combined{relay_->all_reduce(mine), {}};
  // Every rank sees the same combination, so all of them gather or none does.
  if (combined.step.gather != 0 && !combined.step.failed()) combined.gathered = gather_on_first(mine.gather_value);
  return combined;
}

void MpiSession::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  _exit(status);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace ncclsweep
