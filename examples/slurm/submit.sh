#!/usr/bin/env bash
# Submits a sharded gdtune sweep to SLURM: an array of N tasks (one shard
# and one GPU each, sweep-array.sbatch), then the merge job (merge.sbatch)
# with --dependency=afterok on the array.  README.md, "Scale-out".
#
#   submit.sh [-s SBATCH_OPTION]... [-c COMMITTED_TABLES|none] RESULTS N FAMILY [gdtune sweep option...]
#
#   -s  an option for both sbatch calls (repeat it: -s --partition=gpu -s --time=4:00:00)
#   -c  the tables the merged ones are compared with (default: the tables
#       beside these examples, the repository's or the installed ones;
#       none: no comparison)
#
# Prints the two job ids ("array <id>", "merge <id>") and where results land.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage="usage: submit.sh [-s SBATCH_OPTION]... [-c COMMITTED_TABLES|none] RESULTS N FAMILY [gdtune sweep option...]"
sbatch_opts=()
committed=$here/../../tables
while getopts "s:c:h" opt; do
    case $opt in
    s) sbatch_opts+=("$OPTARG") ;;
    c) committed=$OPTARG ;;
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
mkdir -p "$results/logs"
# sbatch --output expands %j, %a, ...: a % of the path itself is written %%.
logs=${results//%/%%}/logs

array=$(sbatch --parsable --array="0-$((shards - 1))" --output="$logs/shard-%a.out" \
    "${sbatch_opts[@]}" "$here/sweep-array.sbatch" "$results" "$shards" "$family" "$@")
array=${array%%;*} # --parsable prints "id[;cluster]"
merge=$(sbatch --parsable --dependency="afterok:$array" --output="$logs/merge.out" \
    "${sbatch_opts[@]}" "$here/merge.sbatch" "$results" "$shards" "$committed")
merge=${merge%%;*}

echo "array $array"
echo "merge $merge"
echo "submit.sh: shard I runs in $results/shards/I (log $results/logs/shard-I.out); the merged" \
    "tables land in $results/tables (log $results/logs/merge.out)" >&2
echo "submit.sh: to rerun failed shard I (it resumes its journal, or starts afresh without one)," \
    "resubmit that index and re-point the merge at it:" >&2
# shellcheck disable=SC2016 # $job and $(...) are the printed command's, not ours
printf '  job=$(sbatch --parsable --array=I --output=%q' "$logs/shard-%a.out" >&2
for o in "${sbatch_opts[@]}"; do printf ' %q' "$o" >&2; done
# the sweep's own options too: a shard that never wrote its journal starts afresh with them
for o in "$here/sweep-array.sbatch" "$results" "$shards" "$family" "$@"; do printf ' %q' "$o" >&2; done
printf ')\n' >&2
# shellcheck disable=SC2016
printf '  scontrol update jobid=%q dependency=afterok:$job\n' "$merge" >&2
