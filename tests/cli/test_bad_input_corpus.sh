#!/usr/bin/env bash
# Every file of the bad-input corpus through the CLI (tests/data/bad-input/make_corpus.py
# says which command reads which kind): exit status 2 and an error message naming the
# input, never a crash (signal, sanitizer report) or a hang.
# Usage: test_bad_input_corpus.sh NCCLSWEEP SOURCE_DIR
set -uo pipefail
bin=$1
cd "$2/tests/data" || exit 1
failures=0
checked=0

expect_refusal() {
  local input=$1; shift
  local err status
  err=$(timeout 60 "$@" 2>&1 >/dev/null)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -ne 2 ]; then
    echo "FAIL: $* exited $status, expected 2: ${err:0:400}"
    failures=$((failures + 1))
  elif ! grep -q "error" <<<"$err" || ! grep -qF -- "$(basename "$input")" <<<"$err"; then
    echo "FAIL: $*: the message does not name $(basename "$input"): ${err:0:400}"
    failures=$((failures + 1))
  elif grep -q "runtime error:\|AddressSanitizer\|LeakSanitizer" <<<"$err"; then
    echo "FAIL: $*: a sanitizer reported: ${err:0:400}"
    failures=$((failures + 1))
  fi
}

# config-field-too-new.yaml is refused only against an older NCCL (the unit test sets one).
for f in bad-sweeps/*.yaml bad-input/sweeps/*; do
  [ "$(basename "$f")" = config-field-too-new.yaml ] || expect_refusal "$f" "$bin" plan "$f"
done
for d in bad-input/results/*/; do expect_refusal "${d%/}" "$bin" report "${d%/}"; done
for f in bad-input/nccl-tests/*; do expect_refusal "$f" "$bin" report "$f"; done
for f in bad-input/nccl-logs/*; do expect_refusal "$f" "$bin" sizes --from-nccl-log "$f"; done
for f in bad-input/traces/*; do expect_refusal "$f" "$bin" sizes --from-torch-trace "$f"; done

echo "bad-input corpus: $checked inputs, $failures failure(s)"
exit $((failures > 0))
