#!/usr/bin/env bash
# scripts/setup on machines like the ones users have, simulated with PATH tricks:
#   - cmake from a Python environment (dpkg never asked; a fake dpkg would say "not installed"),
#   - no network (a fake apt-get whose package sources never answer),
#   - no root (a fake id),
#   - a library missing (the probe told -DCMAKE_DISABLE_FIND_PACKAGE_<name>=ON),
#   - a cmake that is too old,
#   - no pkg-config.
# Setup must go on whenever the build can proceed, and otherwise say what is missing and how
# to get it. Usage: test_setup.sh SOURCE_DIR
set -uo pipefail
src=$(realpath "$1")
work=$(mktemp -d /tmp/ncclsweep-setup-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

real_cmake=$(command -v cmake)
mkdir -p "$work/python-env/bin" "$work/offline" "$work/user" "$work/old-cmake"
ln -s "$real_cmake" "$work/python-env/bin/cmake"
for tool in dpkg dpkg-query; do
  printf '#!/bin/sh\necho "%s $*" >>%s/dpkg.log\nexit 1\n' "$tool" "$work" >"$work/offline/$tool"
done
cat >"$work/offline/apt-get" <<APT
#!/bin/sh
echo "apt-get \$*" >>$work/apt.log
case "\$*" in
  *update*) echo "Err:1 http://deb.debian.org/debian bookworm InRelease"
            echo "  Temporary failure resolving 'deb.debian.org'"
            echo "W: Some index files failed to download." >&2; exit 0 ;;
  *) echo "E: Failed to fetch http://deb.debian.org/debian/pool/x.deb  Temporary failure resolving 'deb.debian.org'" >&2
     exit 100 ;;
esac
APT
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' >"$work/user/id"
printf '#!/bin/sh\necho "cmake version 3.20.0"\n' >"$work/old-cmake/cmake"
chmod +x "$work"/offline/* "$work"/user/id "$work"/old-cmake/cmake

offline_path="$work/offline:$work/python-env/bin:$PATH"
# setup PATH ARGS...: its output in $output, its exit status in $status.
setup() {
  local path=$1; shift
  rm -f "$work/apt.log"
  output=$(PATH=$path "$src/scripts/setup" "$@" 2>&1)
  status=$?
  echo "--- scripts/setup $* (PATH starts ${path%%:*}): exit $status"
  echo "$output" | sed 's/^/  | /'
}
expect() { grep -qF -- "$1" <<<"$output" || fail "expected '$1'"; }
apt_called() { [ -s "$work/apt.log" ]; }
# The nccl engine's probe (nvcc) is slow and beside the point here.
no_nccl=-DNCCLSWEEP_WITH_NCCL=OFF

# 1. Everything the build needs is present; cmake comes from a Python environment and the
#    node has no network: setup succeeds without asking apt or dpkg anything.
setup "$offline_path" "$no_nccl"
[ "$status" -eq 0 ] || fail "everything present: exit $status, expected 0"
expect "found cmake"
expect "$work/python-env/bin/cmake"
expect "yaml-cpp"
expect "the mpi engine only"
apt_called && fail "everything present: apt-get was called: $(cat "$work/apt.log")"
[ -s "$work/dpkg.log" ] && fail "setup asked dpkg: $(cat "$work/dpkg.log")"

# 2. yaml-cpp missing, root, no network: apt is tried, fails, and setup says what to do.
setup "$offline_path" "$no_nccl" -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON
[ "$status" -eq 1 ] || fail "yaml-cpp missing offline: exit $status, expected 1"
apt_called || fail "root with yaml-cpp missing: apt-get was not tried"
grep -q "install.*libyaml-cpp-dev" "$work/apt.log" 2>/dev/null || fail "apt-get was not asked for libyaml-cpp-dev"
expect "reached no package source"
expect "missing: yaml-cpp"
expect "apt-get install libyaml-cpp-dev"
expect "CMAKE_PREFIX_PATH"

# 3. The same on a login node without root: nothing is tried, the sudo command is printed.
setup "$work/user:$offline_path" "$no_nccl" -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON
[ "$status" -eq 1 ] || fail "yaml-cpp missing, not root: exit $status, expected 1"
apt_called && fail "not root: apt-get was called"
expect "sudo apt-get update && sudo apt-get install libyaml-cpp-dev"

# 4. Catch2 missing: the build proceeds without tests; scripts/test (--tests) cannot.
setup "$work/user:$offline_path" "$no_nccl" -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON
[ "$status" -eq 0 ] || fail "Catch2 missing, build only: exit $status, expected 0"
expect "the build has no tests"
setup "$work/user:$offline_path" --tests "$no_nccl" -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON
[ "$status" -eq 1 ] || fail "Catch2 missing with --tests: exit $status, expected 1"
expect "missing: Catch2"
expect "sudo apt-get update && sudo apt-get install catch2"

# 5. A cmake older than 3.24 first on PATH is named as the problem, with how to get another.
setup "$work/user:$work/old-cmake:$offline_path" "$no_nccl"
[ "$status" -eq 1 ] || fail "cmake 3.20: exit $status, expected 1"
expect "CMake >= 3.24 (found 3.20.0 at $work/old-cmake/cmake)"
expect "pip install cmake"

# 6. No pkg-config (a minimal Debian: libhwloc-dev only recommends it): hwloc cannot be
#    found, and setup asks apt for pkg-config with it.
setup "$offline_path" "$no_nccl" -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
[ "$status" -eq 1 ] || fail "pkg-config missing offline: exit $status, expected 1"
grep -q "install.*pkg-config" "$work/apt.log" 2>/dev/null || fail "apt-get was not asked for pkg-config"
expect "missing: hwloc (found through pkg-config, which is missing)"
expect "apt-get install libhwloc-dev pkg-config"

if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "scripts/setup: all cases behaved"
