#!/usr/bin/env bash
# examples/slurm without a cluster (issue 36 item 7): what submit.sh hands
# sbatch, the scripts' #SBATCH defaults, and a 1-based array run by hand.
#
#   test_slurm_scripts.sh GDTUNE STAND_IN_WORKER SOURCE_DIR
#
# 1. Both scripts carry --time, --mem and --cpus-per-task defaults; only
#    the array asks for a GPU.
# 2. submit.sh -n prints the two sbatch argument vectors: -s options (the
#    GPU partition) reach the array only, -m the merge only, -a both; the
#    merge depends on the array (afterok); a % of RESULTS is %% in
#    --output only.
# 3. sweep-array.sbatch run as the tasks of --array=1-4 would run it
#    (SLURM_ARRAY_TASK_ID 1..4), then merge.sbatch: the run directories are
#    shards/0..3 (index 4 is shard 0) and the merged tables equal one
#    unsharded run's.
set -euo pipefail

if [[ $# -ne 3 ]]; then
    echo "usage: test_slurm_scripts.sh GDTUNE STAND_IN_WORKER SOURCE_DIR" >&2
    exit 2
fi
gdtune=$1
worker=$2
examples=$3/examples/slurm
tmp=$(mktemp -d /tmp/gdt_slurm_scripts_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "test_slurm_scripts: FAILED: $*"
    exit 1
}

# ------------------------------------------------ 1. #SBATCH defaults
for f in sweep-array.sbatch merge.sbatch; do
    for o in --time= --mem= --cpus-per-task=; do
        grep -q "^#SBATCH $o" "$examples/$f" || fail "$f has no #SBATCH $o default"
    done
done
grep -q '^#SBATCH --gpus' "$examples/sweep-array.sbatch" || fail "the array asks for no GPU"
! grep -q '^#SBATCH --gpus\|^#SBATCH --gres\|^#SBATCH --partition' "$examples/merge.sbatch" ||
    fail "merge.sbatch asks for a GPU or a partition"

# ------------------------------------------------ 2. the sbatch vectors
out=$(bash "$examples/submit.sh" -n -s --partition=gpu -s --gpus-per-task=2 -m --mem=1G \
    -a --account=acct -c none "$tmp/r 1%a" 4 gemm --deadline 5)
array=$(grep '^sbatch --array=' <<<"$out") || fail "no array submission in: $out"
merge=$(grep '^sbatch --dependency=' <<<"$out") || fail "no merge submission in: $out"
want_array="sbatch --array=0-3 --output=$(printf '%q' "$tmp/r 1%%a/logs/shard-%a.out") --partition=gpu"
want_array+=" --gpus-per-task=2 --account=acct $(printf '%q' "$examples/sweep-array.sbatch")"
want_array+=" $(printf '%q' "$tmp/r 1%a") 4 gemm --deadline 5"
[[ $array == "$want_array" ]] || fail "array submission: $array (expected $want_array)"
want_merge="sbatch --dependency=afterok:dry-array --output=$(printf '%q' "$tmp/r 1%%a/logs/merge.out")"
want_merge+=" --mem=1G --account=acct $(printf '%q' "$examples/merge.sbatch") $(printf '%q' "$tmp/r 1%a") 4 none"
[[ $merge == "$want_merge" ]] || fail "merge submission: $merge (expected $want_merge)"
grep -qx 'array dry-array' <<<"$out" && grep -qx 'merge dry-merge' <<<"$out" || fail "no job ids in: $out"
[[ ! -e "$tmp/r 1%a" ]] || fail "a dry run made RESULTS"
rc=0
bash "$examples/submit.sh" -x "$tmp/r" 2 gemm 2>/dev/null || rc=$?
[[ $rc -eq 2 ]] || fail "an unknown option exited $rc, expected 2"
echo "test_slurm_scripts: submit.sh -n: GPU options to the array only, the merge its own"

# ------------------------------------------------ 3. a 1-based array by hand
cat >"$tmp/six.json" <<'JSON'
{"schema":"gdtune.sweep/1","families":["gemm"],
 "grid":[{"m":[256,512,768,1024,1280,1536],"n,k":[[512,256]],"dtype":["bf16"]}]}
JSON
opts=(--spec "$tmp/six.json" --deadline 1)
export GDTUNE=$gdtune GDTUNE_WORKER_EXE=$worker
rc=0
"$gdtune" sweep gemm "${opts[@]}" --out "$tmp/ref" --tables-dir "$tmp/ref-tables" >"$tmp/ref.log" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || fail "the unsharded sweep exited $rc, expected 4: $(tail -n 3 "$tmp/ref.log")"
for i in 1 2 3 4; do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=4 \
        bash "$examples/sweep-array.sbatch" "$tmp/r1" 4 gemm "${opts[@]}" >"$tmp/task$i.log" 2>&1 ||
        fail "array index $i failed: $(tail -n 3 "$tmp/task$i.log")"
done
grep -q "shard 0/4 from SLURM job array: SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1" "$tmp/task4.log" ||
    fail "index 4 did not run shard 0/4: $(grep -m1 'shard auto' "$tmp/task4.log")"
for s in 0 1 2 3; do
    [[ -s $tmp/r1/shards/$s/journal.jsonl ]] || fail "no run directory shards/$s"
done
[[ ! -e $tmp/r1/shards/4 ]] || fail "index 4 wrote shards/4, not the shard's directory"
bash "$examples/merge.sbatch" "$tmp/r1" 4 none >"$tmp/merge.log" 2>&1 || fail "merge: $(tail -n 3 "$tmp/merge.log")"
for f in gemm.tuning.json gemm.placement.json; do
    cmp "$tmp/ref-tables/sm90/$f" "$tmp/r1/tables/sm90/$f" || fail "merged $f differs from the unsharded run's"
done
SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=1 \
    bash "$examples/sweep-array.sbatch" "$tmp/r1" 4 gemm "${opts[@]}" >"$tmp/again.log" 2>&1 ||
    fail "index 4 resubmitted: $(tail -n 3 "$tmp/again.log")"
grep -q "shards/0 has a journal: resuming it" "$tmp/again.log" || fail "index 4 resubmitted did not resume shards/0"
echo "test_slurm_scripts: --array=1-4 by hand: shards/0..3, index 4 is shard 0 (resumed as such), merged tables equal the unsharded run's"
echo "test_slurm_scripts: ok"
