#!/bin/sh
# The folders' include graph (cli/README.md): every quoted #include of a .c
# or .h under engines/, harness/, reports/ and cli/ is resolved the way the
# compiler does (the including file's folder, then the project's include
# folders) to the top folder that holds it, and each arrow is checked:
#
#   cli     -> cli, harness, reports, engines
#   reports -> reports, harness, engines
#   harness -> harness, engines
#   engines -> engines
#
# A header name found in two folders is refused too: which one a file gets
# would hang on the -I order.  Prints the arrow counts; exit 0 when every
# arrow is allowed, 1 naming each one that is not, 2 on bad usage.
# usage: test_layering.sh SOURCE_DIR
set -u
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: test_layering.sh SOURCE_DIR" >&2; exit 2; }
cd "$1" || exit 2
LAYERS="engines harness reports cli"
ROOTS="engines/include engines harness reports cli"
for l in $LAYERS; do
    [ -d "$l" ] || { echo "test_layering: $1/$l: no such folder" >&2; exit 2; }
done

allowed() { # from to
    case "$1:$2" in
    cli:cli | cli:harness | cli:reports | cli:engines) return 0 ;;
    reports:reports | reports:harness | reports:engines) return 0 ;;
    harness:harness | harness:engines | engines:engines) return 0 ;;
    esac
    return 1
}

# The top folder of the header a file's #include "name" reaches, "" when it
# is none of the project's (a library's header), "?" when two roots hold it.
resolve() { # file name
    dir=${1%/*}
    if [ -f "$dir/$2" ]; then
        echo "${dir%%/*}"
        return
    fi
    hit=""
    for r in $ROOTS; do
        [ -f "$r/$2" ] || continue
        [ -n "$hit" ] && [ "$hit" != "${r%%/*}" ] && { echo "?"; return; }
        hit=${r%%/*}
    done
    echo "$hit"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdt_layering.XXXXXX") || exit 1
trap 'rm -f "$tmp/arrows" "$tmp/bad"; rmdir "$tmp"' EXIT
: >"$tmp/arrows"
: >"$tmp/bad"
find $LAYERS -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort | while read -r f; do
    from=${f%%/*}
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    while IFS= read -r line; do
        name=$(printf '%s\n' "$line" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
        no=${line%%:*}
        to=$(resolve "$f" "$name")
        [ -z "$to" ] && continue
        echo "$from -> $to" >>"$tmp/arrows"
        if [ "$to" = "?" ]; then
            echo "$f:$no: \"$name\" is in more than one of: $ROOTS" >>"$tmp/bad"
        elif ! allowed "$from" "$to"; then
            echo "$f:$no: includes \"$name\" ($to/): $from/ may include only" \
                 "$(for t in $LAYERS; do allowed "$from" "$t" && printf '%s/ ' "$t"; done)" >>"$tmp/bad"
        fi
    done
done
echo "include arrows (count from -> to):"
LC_ALL=C sort "$tmp/arrows" | uniq -c
if [ -s "$tmp/bad" ]; then
    echo "test_layering: $(wc -l <"$tmp/bad") include(s) break the folder layering:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
echo "test_layering: ok"
exit 0
