#!/usr/bin/env bash
# Submits a sharded gdtune sweep to SLURM: an array of N tasks (one shard
# and one GPU each, sweep-array.sbatch), then the merge job (merge.sbatch,
# no GPU) with --dependency=afterok on the array.  docs/scale-out.md.
#
#   submit.sh [-s OPT]... [-m OPT]... [-a OPT]... [-c COMMITTED_TABLES|none] [-n]
#             RESULTS N FAMILY [gdtune sweep option...]
#
#   -s  an sbatch option for the array only: the GPU partition, GPUs, time
#       (-s --partition=gpu -s --time=4:00:00); the merge needs no GPU
#   -m  an sbatch option for the merge only (-m --partition=cpu -m --mem=16G)
#   -a  an sbatch option for both (-a --account=proj -a --qos=normal)
#   -c  the tables the merged ones are compared with (default: the tables
#       beside these examples, the repository's or the installed ones;
#       none: no comparison)
#   -n  dry run: print each sbatch argument vector on stdout (shell-quoted,
#       one per line, starting "sbatch") and submit nothing
#
# The scripts' #SBATCH lines hold the defaults (--time, --mem,
# --cpus-per-task); options given here come after them and win.  Prints
# the two job ids ("array <id>", "merge <id>") and where results land.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage="usage: submit.sh [-s OPT]... [-m OPT]... [-a OPT]... [-c COMMITTED_TABLES|none] [-n] RESULTS N FAMILY [gdtune sweep option...]"
array_opts=()
merge_opts=()
committed=$here/../../tables
dry=""
while getopts "s:m:a:c:nh" opt; do
    case $opt in
    s) array_opts+=("$OPTARG") ;;
    m) merge_opts+=("$OPTARG") ;;
    a) array_opts+=("$OPTARG"); merge_opts+=("$OPTARG") ;;
    c) committed=$OPTARG ;;
    n) dry=1 ;;
    h) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -lt 3 ]]; then
    echo "$usage" >&2
    exit 2
fi
results=$(realpath -m -- "$1")
shards=$2
family=$3
shift 3
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
    echo "submit.sh: N: expected a shard count (1, 2, ...), got '$shards'" >&2
    exit 2
fi
if [[ $committed != none ]]; then
    committed=$(realpath -m -- "$committed")
fi
# sbatch --output expands %j, %a, ...: a % of the path itself is written %%.
logs=${results//%/%%}/logs

# submit NAME ARGS...: sbatch ARGS..., printing the job id; with -n its
# argument vector on our stdout (fd 3) and the id "dry-NAME".
exec 3>&1
submit() {
    local name=$1
    shift
    if [[ -n $dry ]]; then
        printf 'sbatch' >&3
        printf ' %q' "$@" >&3
        printf '\n' >&3
        echo "dry-$name"
        return
    fi
    local id
    id=$(sbatch --parsable "$@")
    echo "${id%%;*}" # --parsable prints "id[;cluster]"
}

[[ -n $dry ]] || mkdir -p "$results/logs"
array=$(submit array --array="0-$((shards - 1))" --output="$logs/shard-%a.out" \
    "${array_opts[@]}" "$here/sweep-array.sbatch" "$results" "$shards" "$family" "$@")
merge=$(submit merge --dependency="afterok:$array" --output="$logs/merge.out" \
    "${merge_opts[@]}" "$here/merge.sbatch" "$results" "$shards" "$committed")

echo "array $array"
echo "merge $merge"
echo "submit.sh: shard I runs in $results/shards/I (log $results/logs/shard-I.out); the merged" \
    "tables land in $results/tables (log $results/logs/merge.out)" >&2
echo "submit.sh: to rerun failed shard I (it resumes its journal, or starts afresh without one)," \
    "resubmit that index and re-point the merge at it:" >&2
# shellcheck disable=SC2016 # $job and $(...) are the printed command's, not ours
printf '  job=$(sbatch --parsable --array=I --output=%q' "$logs/shard-%a.out" >&2
for o in "${array_opts[@]}"; do printf ' %q' "$o" >&2; done
# the sweep's own options too: a shard that never wrote its journal starts afresh with them
for o in "$here/sweep-array.sbatch" "$results" "$shards" "$family" "$@"; do printf ' %q' "$o" >&2; done
printf ')\n' >&2
# shellcheck disable=SC2016
printf '  scontrol update jobid=%q dependency=afterok:$job\n' "$merge" >&2
