#!/bin/sh
# Generates the fuzz targets' seed corpora from committed files into OUT
# (the build directory; nothing here is committed):
#   make_seeds.sh SOURCE_DIR OUT
# Each OUT/<target>/ gets copies of the files that loader reads in the
# repository; the journal seeds are the committed run journals decompressed,
# cut to their first 40 lines and to the longest prefix of whole records
# under 1 MB (the whole journals are larger).
set -eu
src=$1
out=$2
mkdir -p "$out/candidates" "$out/sweep" "$out/shape" "$out/tables" "$out/journal"

copy() { # copy DEST FILE... (named by their path in the repository: no clashes)
    dest=$1
    shift
    for f in "$@"; do
        [ -f "$f" ] || continue
        cp "$f" "$out/$dest/$(printf '%s' "${f#"$src"/}" | tr / _)"
    done
}

copy candidates "$src"/tables/candidates/*.json "$src"/tests/data/candidates/*.json
copy sweep "$src"/sweeps/*.json "$src"/sweeps/budget/*.json "$src"/tests/data/sweeps/*.json
copy tables "$src"/tables/sm90/*.json "$src"/tests/data/tables/sm90/*.json

# The journals the committed tables come from (runs/README.md).
set -- "$src"/runs/sm90/tables/*.jsonl.gz
if [ ! -f "$1" ]; then
    echo "make_seeds.sh: no journal matches $src/runs/sm90/tables/*.jsonl.gz" >&2
    exit 2
fi

# Shapes: the k=v,... lists the READMEs and docs/ show, and the cells' shapes of the
# committed journals (every family).
i=0
{
    grep -ohE '\b[a-z_]+=[A-Za-z0-9_.]+(,[a-z_]+=[A-Za-z0-9_.]+)*' "$src/README.md" "$src/sweeps/README.md" "$src"/docs/*.md
    for j in "$@"; do
        gzip -dc "$j" | grep -oE '"shape":"[^"]*"' | sed 's/^"shape":"//; s/"$//'
    done
} | sort -u | while IFS= read -r s; do
    i=$((i + 1))
    printf '%s' "$s" > "$out/shape/shape-$i"
done

for j in "$@"; do
    name=$(basename "$j" .jsonl.gz)
    gzip -dc "$j" | head -n 40 > "$out/journal/$name-40"
    gzip -dc "$j" | awk 'BEGIN { n = 0 } { n += length($0) + 1; if (n >= 1000000) exit; print }' \
        > "$out/journal/$name-1mb"
done
