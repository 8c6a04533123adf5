#!/usr/bin/env bash
# `ncclsweep sizes` end to end: the acceptance numbers, and exit status 2 with the
# file named for bad input. Usage: test_sizes_cli.sh NCCLSWEEP SOURCE_DIR
set -uo pipefail
bin=$1
cd "$2" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

json=$("$bin" sizes --model llama3-8b --dp 64 --dp-style fsdp --param-dtype bfloat16 --grad-dtype float32 --format json) \
  || fail "acceptance command exited $?"
grep -q '"bytes": 436224000' <<<"$json" || fail "no AllGather of 436224000 B"
grep -q '"bytes": 872448000' <<<"$json" || fail "no ReduceScatter of 872448000 B"

yaml=$("$bin" sizes --workload configs/workloads/nemotron4-15b-h100-512.yaml --format yaml) || fail "workload exited $?"
grep -q '^sizes:$' <<<"$yaml" || fail "yaml has no sizes: block"
grep -q '^  calls:$' <<<"$yaml" || fail "yaml has no calls: list"
grep -q '^    - {collective: all_gather, bytes: [0-9]*, dtype: bfloat16, group: dp-cp' <<<"$yaml" \
  || fail "yaml lists no all_gather on its dp-cp group"
# The yaml is a sweep's sizes block: plan reads it back and measures each call on its group.
sweep=$(mktemp) && trap 'rm -f "$sweep"' EXIT
# engine nccl: the mpi engine cannot reduce the yaml's bfloat16 calls, and plan refuses them as run does.
printf 'engine: nccl\n%s\n' "$yaml" >"$sweep"
planned=$("$bin" plan "$sweep" 2>&1) || fail "plan of the sizes yaml exited $?: $planned"
grep -q 'as measured on 512 ranks' <<<"$planned" || fail "plan does not take the yaml's 512 ranks: $planned"
grep -q 'all_gather .* on dp-cp 256 (stride 2)' <<<"$planned" || fail "plan does not measure all_gather on dp-cp 256"

# Which calls cross nodes: 512 H100 of 8 GPUs (tp 4, pp 4, cp 2, dp 16): the TP calls stay
# inside a node, the dp-cp buckets (32 ranks, stride 4) cross nodes; 2 GPUs per node puts
# each 4-rank TP group on two nodes.
table=$("$bin" sizes --workload configs/workloads/llama3.1-70b-h100-512.yaml --gpus-per-node 8) || fail "--gpus-per-node exited $?"
grep -q '^# network: ranks fill nodes of 8' <<<"$table" || fail "no network line: $table"
grep -Eq '^all_gather +tp 4 +intra-node ' <<<"$table" || fail "TP all_gather not intra-node: $table"
grep -Eq '^reduce_scatter +dp-cp 32 +inter-node ' <<<"$table" || fail "dp-cp reduce_scatter not inter-node: $table"
table=$("$bin" sizes --workload configs/workloads/llama3.1-70b-h100-512.yaml --gpus-per-node 2) || fail "--gpus-per-node 2 exited $?"
grep -Eq '^all_gather +tp 4 +inter-node ' <<<"$table" || fail "TP over two nodes not inter-node: $table"
table=$("$bin" sizes --workload configs/workloads/llama3.1-70b-h100-512.yaml) || fail "workload exited $?"
grep -q 'give --gpus-per-node N' <<<"$table" || fail "no way to learn which calls cross nodes: $table"
json=$("$bin" sizes --model llama3-8b --dp 16 --tp 2 --gpus-per-node 8 --format json) || fail "json exited $?"
grep -q '"network": "inter-node"' <<<"$json" || fail "json names no inter-node call"
grep -q '"gpus_per_node": 8' <<<"$json" || fail "json lacks gpus_per_node"

# Bad input: exit 2, a message naming what is wrong, and a fix line: every refusal of the
# workload's fields and flags says what to change.
expect_usage_error() {
  local needle=$1; shift
  local err
  err=$("$bin" sizes "$@" 2>&1 >/dev/null); local status=$?
  [ "$status" -eq 2 ] || fail "sizes $* exited $status, expected 2"
  grep -qF -- "$needle" <<<"$err" || fail "sizes $*: message lacks '$needle': $err"
  grep -q '^  fix: ..' <<<"$err" || fail "sizes $*: no fix line: $err"
}
expect_usage_error "dp_style fsdp is modelled with pp = cp = ep = 1 only" --model llama3-8b --dp-style fsdp --pp 4 --dp 2
expect_usage_error "--dp-style megatron" --model llama3-8b --dp-style hsdp --cp 2 --dp 4 --hsdp-shard-size 2
expect_usage_error "pick tp among 1, 2, 4, 8" --model llama3-8b --tp 3
expect_usage_error "is not a multiple of cp 3" --model llama3-8b --cp 3 --seq 4096
expect_usage_error "vp > 1 needs pp > 1" --model llama3-8b --vp 2
expect_usage_error "ep > 1 on a model without experts" --model llama3-8b --ep 2 --dp 2
expect_usage_error "tp must be a whole number" --model llama3-8b --tp four
expect_usage_error "pp = 0 must be at least 1" --model llama3-8b --pp 0
expect_usage_error "sequence_parallel must be true or false" --model llama3-8b --sequence-parallel maybe
expect_usage_error "do not fill whole nodes of 3" --model llama3-8b --dp 8 --gpus-per-node 3
expect_usage_error "gpus_per_node must be at least 1" --model llama3-8b --gpus-per-node 0
expect_usage_error "global_batch 3 is not a multiple" --model llama3-8b --dp 2 --global-batch 3
expect_usage_error "fewer layers" --model llama3-8b --pp 8 --vp 8 --dp 1
expect_usage_error "pipeline_rank must be in [0, pp)" --model llama3-8b --pp 2 --pipeline-rank 2
expect_usage_error "no model given" --tp 2
expect_usage_error "--dp: dp = 4294967298 is more than 1048576" --model llama3-8b --dp 4294967298
expect_usage_error "--bucket-size: bucket_size must be at least 1" --model llama3-8b --dp 2 --bucket-size 0
workload=$(mktemp) && trap 'rm -f "$sweep" "$workload"' EXIT
printf 'model: llama3-8b\ntp: [1, 2]\n' >"$workload"
expect_usage_error "$workload:2:" --workload "$workload"
printf 'model: llama3-8b\nflavour: 2\n' >"$workload"
expect_usage_error "unknown key 'flavour'" --workload "$workload"
printf -- '- model\n' >"$workload"
expect_usage_error "expected a mapping" --workload "$workload"
expect_usage_error "unknown model 'llama9'" --model llama9
expect_usage_error "is not the rank count 100" --model llama3-8b --dp 64 --gpus 100
expect_usage_error "no file matches 'tests/data/none-*.log'" --from-nccl-log 'tests/data/none-*.log'
expect_usage_error "tests/data/nccl_log_without_coll.log" --from-nccl-log tests/data/nccl_log_without_coll.log
expect_usage_error "tests/data/not_a_trace.json" --from-torch-trace tests/data/not_a_trace.json
expect_usage_error "--iterations" --from-nccl-log 'tests/data/nccl_log/*.log' --iterations 0
expect_usage_error "give exactly one source" --model llama3-8b --from-inspector 'tests/data/inspector/*.log'

# A NCCL log's count-0 calls stay out of the yaml (commented), so plan reads it back.
log=$(mktemp) && trap 'rm -f "$sweep" "$workload" "$log"' EXIT
line='host1:1234:1240 [0] NCCL INFO AllReduce: opCount 5 sendbuff 0x7f0 recvbuff 0x7f0 count 1048576 datatype 7 op 0 root 0 comm 0x55 [nranks=2] stream 0x56'
printf '%s\n%s\n' "$line" "${line/count 1048576/count 0}" >"$log"
yaml=$("$bin" sizes --from-nccl-log "$log" --format yaml) || fail "sizes of a log with a count-0 call exited $?"
grep -q '^# not measured (0 bytes): all_reduce' <<<"$yaml" || fail "no comment for the 0-byte call: $yaml"
grep -q 'bytes: 0,' <<<"$yaml" && fail "yaml lists a 0-byte call: $yaml"
printf 'engine: mpi\n%s\n' "$yaml" >"$sweep"
planned=$("$bin" plan "$sweep" 2>&1) || fail "plan of a yaml with a 0-byte call left out exited $?: $planned"

[ "$failures" -eq 0 ] && echo "sizes CLI: all checks passed"
exit "$failures"
