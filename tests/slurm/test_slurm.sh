#!/usr/bin/env bash
# examples/slurm on a real one-node SLURM cluster brought up here: munged,
# slurmctld and slurmd on 127.0.0.1 with a generated slurm.conf, state,
# spool, logs and key in a fresh temporary directory, no cgroups.
#
#   test_slurm.sh GDTUNE STAND_IN_WORKER SOURCE_DIR
#
# 1. submit.sh runs a 2-shard sweep of a 6-cell spec against the stand-in
#    worker (GDTUNE_WORKER_EXE); the merge job's tables equal those of one
#    unsharded run byte for byte.
# 2. A 2-shard sweep whose shard 1 is cancelled mid-run (scancel): its merge
#    job waits on a dependency that can no longer be met; index 1
#    resubmitted resumes its run directory, the merge is re-pointed at it
#    (scontrol update ... dependency=afterok:...), and the resumed journal
#    holds exactly one result per plan.
# 3. A 2-shard sweep (RESULTS with a % in it) whose shard 1 fails before it
#    writes a journal: the resubmission submit.sh prints, run as printed,
#    starts shard 1/2 afresh with the sweep's options; the merged tables
#    equal the unsharded run's.
# 4. A 1-based array (--array=1-2) submitted with sbatch by hand, and
#    merge.sbatch behind it: index 2 runs shard 0 in shards/0, and the
#    merged tables equal the unsharded run's.
# Exit 77 with the reason when it cannot run here (not root, no SLURM or
# munge binaries, munged does not start).  The daemons it started are
# stopped and the directory removed on every exit.
set -euo pipefail

if [[ $# -ne 3 ]]; then
    echo "usage: test_slurm.sh GDTUNE STAND_IN_WORKER SOURCE_DIR" >&2
    exit 2
fi
gdtune=$1
worker=$2
src=$3
examples=$src/examples/slurm

skip() {
    echo "test_slurm: SKIPPED: $*"
    exit 77
}
fail() {
    echo "test_slurm: FAILED: $*"
    exit 1
}

[[ $(id -u) -eq 0 ]] || skip "needs root (slurmd runs jobs as their user; SlurmUser=root)"
for b in munged mungekey slurmctld slurmd sbatch scontrol scancel squeue; do
    command -v "$b" >/dev/null || skip "no $b: install slurm-wlm and munge (.ci/setup does)"
done

tmp=$(mktemp -d /tmp/gdt_slurm_XXXXXX)
pids=()
cleanup() {
    local rc=$?
    if [[ -f $tmp/slurm.conf ]]; then
        SLURM_CONF=$tmp/slurm.conf scancel --quiet --user=root 2>/dev/null || true
        sleep 1
    fi
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    done
    if [[ $rc -ne 0 && $rc -ne 77 && -d $tmp/log ]]; then
        for f in "$tmp"/log/* "$tmp"/r*/logs/*; do
            [[ -f $f ]] && { echo "---- $f"; tail -n 40 "$f"; }
        done
    fi
    rm -rf "$tmp"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A port pair nothing listens on (several clusters may be up on one machine).
free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
            ! (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    fail "no free port pair"
}

# ------------------------------------------------------------- munge
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log"
chmod 755 "$tmp/munge" # clients reach the socket through it
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 || skip "mungekey could not create a key"
munged --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" \
    --seed-file="$tmp/munge/seed" >/dev/null 2>&1 ||
    skip "munged did not start: $(tail -n 3 "$tmp/log/munged.log" 2>/dev/null)"
pids+=("$(cat "$tmp/munge/munged.pid")")

# ------------------------------------------------------------- slurm
node=$(hostname -s)
port=$(free_port)
cat >"$tmp/slurm.conf" <<EOF
ClusterName=gdtunetest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
# Each daemon forks and writes its pid file a moment later.
started() {
    for _ in $(seq 100); do
        [[ -s $1 ]] && { pids+=("$(cat "$1")"); return 0; }
        sleep 0.1
    done
    fail "$2 wrote no pid file ($1)"
}
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
started "$tmp/slurmctld.pid" slurmctld
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
started "$tmp/slurmd.pid" slurmd
for _ in $(seq 100); do
    sinfo --noheader --states=idle --format=%n 2>/dev/null | grep -qx "$node" && break
    sleep 0.2
done
sinfo --noheader --states=idle --format=%n | grep -qx "$node" || fail "node $node never became idle"
echo "test_slurm: one-node cluster up on 127.0.0.1:$port"

# ------------------------------------------------------------- helpers
job_state() {
    scontrol show job "$1" --oneliner 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}
job_reason() {
    scontrol show job "$1" --oneliner 2>/dev/null | grep -o 'Reason=[^ ]*' | head -n 1 | cut -d= -f2
}
# Waits until job $1 is in one of the states $2 (a regex), at most $3 s.
wait_state() {
    local s=""
    for _ in $(seq $(($3 * 5))); do
        s=$(job_state "$1")
        [[ $s =~ ^($2)$ ]] && return 0
        sleep 0.2
    done
    fail "job $1 is $s after $3 s, expected $2"
}
results_in() {
    if [[ -f $1/journal.jsonl ]]; then grep -c '"type":"result"' "$1/journal.jsonl" || true; else echo 0; fi
}

export GDTUNE=$gdtune GDTUNE_WORKER_EXE=$worker
spec=$tmp/six.json
cat >"$spec" <<'EOF'
{"schema":"gdtune.sweep/1","families":["gemm"],
 "grid":[{"m":[256,512,768,1024,1280,1536],"n,k":[[512,256]],"dtype":["bf16"]}]}
EOF
sweep_opts=(--spec "$spec" --deadline 1)
# No GPU in this cluster: the array's one-GPU request is lifted (-s: the
# array only), and both jobs' #SBATCH defaults (8 CPUs, 32G) are brought
# down to this node (-a: both jobs; --mem=0: the node's memory).
small=(--cpus-per-task=1 --mem=0)
submit=("$examples/submit.sh" -s --gpus-per-task=0 -a "${small[0]}" -a "${small[1]}")

# The comparison with committed tables goes through `gdtune tables diff`,
# which a gdtune without that command refuses: then the merge job is
# submitted without it.
# The stand-in worker plants an incorrect plan, so a finished sweep exits 4.
rc=0
"$gdtune" sweep gemm "${sweep_opts[@]}" --out "$tmp/ref" --tables-dir "$tmp/ref-tables" \
    >"$tmp/log/ref.out" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || fail "the unsharded sweep exited $rc, expected 4 (an incorrect plan): $(tail -n 5 "$tmp/log/ref.out")"
committed=none
if "$gdtune" tables diff "$tmp/ref-tables" "$tmp/ref-tables" >/dev/null 2>&1; then
    committed=$tmp/ref-tables
else
    echo "test_slurm: this gdtune has no \`tables diff\`: the merge job compares nothing"
fi

# ------------------------------------------- 1. array, merge, same tables
out=$("${submit[@]}" -c "$committed" "$tmp/r1" 2 gemm "${sweep_opts[@]}" 2>/dev/null)
array=$(sed -n 's/^array //p' <<<"$out")
merge=$(sed -n 's/^merge //p' <<<"$out")
[[ -n $array && -n $merge ]] || fail "submit.sh printed no job ids: $out"
wait_state "$merge" "COMPLETED|FAILED|CANCELLED|TIMEOUT" 120
[[ $(job_state "$merge") == COMPLETED ]] || fail "merge job $merge is $(job_state "$merge")"
for f in gemm.tuning.json gemm.placement.json; do
    cmp "$tmp/ref-tables/sm90/$f" "$tmp/r1/tables/sm90/$f" || fail "merged $f differs from the unsharded run's"
done
grep -q "from SLURM job array: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0" "$tmp/r1/logs/shard-1.out" ||
    fail "shard 1 did not say which variables it used"
echo "test_slurm: array $array and merge $merge: merged tables equal the unsharded run's"

# -------------------------------- 2. a cancelled shard, resubmitted, resumed
out=$("${submit[@]}" -c none "$tmp/r2" 2 gemm "${sweep_opts[@]}" 2>/dev/null)
array=$(sed -n 's/^array //p' <<<"$out")
merge=$(sed -n 's/^merge //p' <<<"$out")
run=$tmp/r2/shards/1
for _ in $(seq 300); do
    [[ $(results_in "$run") -ge 2 ]] && break
    sleep 0.1
done
[[ $(results_in "$run") -ge 2 ]] || fail "shard 1 wrote no results in 30 s"
scancel "${array}_1"
wait_state "${array}_1" "CANCELLED" 30
before=$(results_in "$run")
[[ $before -lt 18 ]] || fail "shard 1 finished ($before results) before it was cancelled"
wait_state "${array}_0" "COMPLETED" 60
sleep 2 # a scheduler pass: the merge's dependency is judged
[[ $(job_state "$merge") == PENDING ]] || fail "merge job $merge is $(job_state "$merge"), expected PENDING"
echo "test_slurm: shard 1 cancelled after $before results; merge $merge waits ($(job_state "$merge"), $(job_reason "$merge"))"

again=$(sbatch --parsable --array=1 --gpus-per-task=0 "${small[@]}" --output="$tmp/r2/logs/shard-%a.again.out" \
    "$examples/sweep-array.sbatch" "$tmp/r2" 2 gemm "${sweep_opts[@]}")
again=${again%%;*}
scontrol update jobid="$merge" dependency="afterok:$again"
wait_state "$merge" "COMPLETED|FAILED|CANCELLED|TIMEOUT" 120
[[ $(job_state "$merge") == COMPLETED ]] || fail "merge job $merge is $(job_state "$merge") after the resubmission"
grep -q "has a journal: resuming it" "$tmp/r2/logs/shard-1.again.out" || fail "index 1 did not resume"
grep -q "resuming shard 1/2" "$tmp/r2/logs/shard-1.again.out" || fail "index 1 did not keep shard 1/2"
# Each of its 3 cells' 6 plans has exactly one result.
dups=$(grep '"type":"result"' "$run/journal.jsonl" | grep -o '"cell":[0-9]*,"plan":[0-9]*' | sort | uniq -d)
[[ -z $dups ]] || fail "plans measured twice in $run: $dups"
[[ $(results_in "$run") -eq 18 ]] || fail "$run has $(results_in "$run") results, expected 18"
grep -q '"type":"resume"' "$run/journal.jsonl" || fail "$run has no resume record"
for f in gemm.tuning.json gemm.placement.json; do
    cmp "$tmp/ref-tables/sm90/$f" "$tmp/r2/tables/sm90/$f" || fail "merged $f differs after the resume"
done
echo "test_slurm: index 1 resubmitted as $again resumed ($before results kept, 18 in all, none twice);" \
    "merge re-pointed and its tables equal the unsharded run's"

# ------------------ 3. a shard that never wrote its journal, resubmitted
# Shard 1's GPU fails at start-up (the stand-in worker exits before hello)
# while $tmp/gpu-broken exists: the task fails with no journal, and the
# merge waits.  The resubmission is the command submit.sh printed, run as
# printed (I replaced by 1): it carries the sweep's options, starts shard
# 1/2 afresh (--shard auto --shards 2 with the array of one), and the
# merged tables equal the unsharded run's.  RESULTS holds a %, which
# sbatch --output would expand: the logs must land under RESULTS itself.
r3=$tmp/r3%a
touch "$tmp/gpu-broken"
{
    echo '#!/usr/bin/env bash'
    # shellcheck disable=SC2016 # the stand-in's own variable
    printf 'if [[ ${SLURM_ARRAY_TASK_ID:-} == 1 && -e %q ]]; then\n' "$tmp/gpu-broken"
    echo '    echo "stand-in worker: GPU failed at start-up" >&2; exit 1'
    echo 'fi'
    printf 'exec %q "$@"\n' "$worker"
} >"$tmp/worker.sh"
chmod +x "$tmp/worker.sh"
export GDTUNE_WORKER_EXE=$tmp/worker.sh
out=$("${submit[@]}" -c "$committed" "$r3" 2 gemm "${sweep_opts[@]}" \
    2>"$tmp/log/submit3.err")
array=$(sed -n 's/^array //p' <<<"$out")
merge=$(sed -n 's/^merge //p' <<<"$out")
[[ -n $array && -n $merge ]] || fail "submit.sh printed no job ids: $out $(cat "$tmp/log/submit3.err")"
wait_state "${array}_1" "FAILED" 60
wait_state "${array}_0" "COMPLETED" 60
[[ ! -e $r3/shards/1/journal.jsonl ]] || fail "shard 1 wrote a journal although its GPU failed"
grep -q "GPU failed at start-up" "$r3/logs/shard-1.out" ||
    fail "no log $r3/logs/shard-1.out saying why shard 1 failed (a % in RESULTS expanded by sbatch?)"
[[ -s $r3/logs/shard-0.out ]] || fail "no log $r3/logs/shard-0.out"
sleep 2
[[ $(job_state "$merge") == PENDING ]] || fail "merge job $merge is $(job_state "$merge"), expected PENDING"
rm -f "$tmp/gpu-broken"
# shellcheck disable=SC2016 # the printed command's $(...), run below
resubmit=$(sed -n 's/^  job=\$(sbatch /job=$(sbatch /p' "$tmp/log/submit3.err")
repoint=$(sed -n 's/^  scontrol update /scontrol update /p' "$tmp/log/submit3.err")
[[ -n $resubmit && -n $repoint ]] || fail "submit.sh printed no resubmission: $(cat "$tmp/log/submit3.err")"
resubmit=${resubmit/--array=I /--array=1 }
job=""
eval "$resubmit" || fail "the printed resubmission failed: $resubmit"
job=${job%%;*}
[[ -n $job ]] || fail "the printed resubmission gave no job id: $resubmit"
eval "$repoint" || fail "the printed re-pointing failed: $repoint"
wait_state "$merge" "COMPLETED|FAILED|CANCELLED|TIMEOUT" 120
[[ $(job_state "$merge") == COMPLETED ]] ||
    fail "merge job $merge is $(job_state "$merge") after the resubmission $job ($(job_state "$job"))"
grep -q "shard 1/2 from SLURM job array: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=1 SLURM_ARRAY_TASK_COUNT=1 --shards 2" \
    "$r3/logs/shard-1.out" || fail "the resubmitted index did not run shard 1/2 (log $r3/logs/shard-1.out)"
for f in gemm.tuning.json gemm.placement.json; do
    cmp "$tmp/ref-tables/sm90/$f" "$r3/tables/sm90/$f" || fail "merged $f differs after the fresh resubmission"
done
echo "test_slurm: index 1 failed before its journal, resubmitted as printed ($job): shard 1/2 afresh," \
    "merged tables equal the unsharded run's"

# ------------------ 4. a 1-based array submitted by hand, and its merge
# --array=1-2 of 2 shards: index 2 is shard 0; the run directories are
# named by shard, so merge.sbatch finds shards/0 and shards/1.
export GDTUNE_WORKER_EXE=$worker
mkdir -p "$tmp/r4/logs" # sbatch --output does not make folders
a4=$(sbatch --parsable --array=1-2 --gpus-per-task=0 "${small[@]}" --output="$tmp/r4/logs/shard-%a.out" \
    "$examples/sweep-array.sbatch" "$tmp/r4" 2 gemm "${sweep_opts[@]}")
a4=${a4%%;*}
m4=$(sbatch --parsable --dependency="afterok:$a4" "${small[@]}" --output="$tmp/r4/logs/merge.out" \
    "$examples/merge.sbatch" "$tmp/r4" 2 "$committed")
m4=${m4%%;*}
wait_state "${a4}_1" "COMPLETED|FAILED|CANCELLED|TIMEOUT" 60
wait_state "${a4}_2" "COMPLETED|FAILED|CANCELLED|TIMEOUT" 60
wait_state "$m4" "COMPLETED|FAILED|CANCELLED|TIMEOUT" 120
[[ $(job_state "$m4") == COMPLETED ]] || fail "merge job $m4 of the 1-based array is $(job_state "$m4")"
grep -q "shard 0/2 from SLURM job array: SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1" "$tmp/r4/logs/shard-2.out" ||
    fail "index 2 of --array=1-2 did not run shard 0/2"
for f in gemm.tuning.json gemm.placement.json; do
    cmp "$tmp/ref-tables/sm90/$f" "$tmp/r4/tables/sm90/$f" || fail "merged $f of the 1-based array differs"
done
echo "test_slurm: --array=1-2 ($a4) and its merge ($m4): shards/0 and shards/1, merged tables equal the unsharded run's"
echo "test_slurm: ok"
