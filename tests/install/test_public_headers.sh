#!/bin/sh
# The installed headers hold handles and functions (issue 35 item 4): the
# engine interface (gdt_engine_ops, the bodies of gdt_engine_slot,
# gdt_manifest and gdt_backend) is libgdtune's own, engines/gdt_engine_impl.h.
#
#   test_public_headers.sh CC --install CMAKE BUILD_DIR WORK
#       cmake --install BUILD_DIR into WORK/prefix and check WORK/prefix/include
#   test_public_headers.sh CC --dir INCLUDE_DIR
#       check the headers under INCLUDE_DIR (tests/install/bad-include shows
#       that the check fails)
#
# Each header (every .h below the include folder) must
#   - compile alone, with nothing but -I INCLUDE_DIR (C11, -Wall -Wextra
#     -pedantic -Werror);
#   - name none of the engine interface's types: gdt_engine_ops,
#     gdt_compiled, gdt_capability, gdt__library_engine (after the
#     preprocessor, so comments do not count);
#   - declare no function pointer but a caller's own callback (a member or
#     parameter or type named in CALLBACKS: gdt_plan_options.warn,
#     gdt_tables_search.warn, gdt_tables_place_fn, the visitor the caller
#     gives gdt_tables_search_places): an interface of function pointers is
#     a vtable;
#   - leave the handles gdt_engine_slot, gdt_manifest and gdt_backend
#     incomplete: a translation unit that includes it may define them.
# No installed header may carry a private header's name (gdt_*.h).
# Exit 0 when every header passes, 1 naming each failure, 2 on bad usage.
set -u
CALLBACKS="warn gdt_tables_place_fn"
FORBIDDEN="gdt_engine_ops gdt_compiled gdt_capability gdt__library_engine"
HANDLES="gdt_engine_slot gdt_manifest gdt_backend"

usage() {
    echo "usage: test_public_headers.sh CC --install CMAKE BUILD_DIR WORK | CC --dir INCLUDE_DIR" >&2
    exit 2
}
[ $# -ge 3 ] || usage
CC=$1
case $2 in
--install)
    [ $# -eq 5 ] || usage
    rm -rf "$5" && mkdir -p "$5" || exit 2
    "$3" --install "$4" --prefix "$5/prefix" >"$5/install.log" 2>&1 || {
        echo "test_public_headers: cmake --install $4 failed:" >&2
        cat "$5/install.log" >&2
        exit 1
    }
    INC=$5/prefix/include
    ;;
--dir)
    [ $# -eq 3 ] || usage
    INC=$3
    ;;
*) usage ;;
esac
[ -d "$INC" ] || { echo "test_public_headers: $INC: no such folder" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdt_public_headers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/bad"
fail() { echo "$*" >>"$tmp/bad"; }

headers=$(cd "$INC" && find . -name '*.h' | sed 's|^\./||' | LC_ALL=C sort)
[ -n "$headers" ] || { echo "test_public_headers: no headers under $INC" >&2; exit 1; }
for h in $headers; do
    case ${h##*/} in
    gdt_*.h) fail "$h: installed under a private header's name (gdt_*.h stays in engines/)" ;;
    esac
    printf '#include <%s>\n' "$h" >"$tmp/alone.c"
    if ! "$CC" -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I "$INC" "$tmp/alone.c" \
        >"$tmp/cc.log" 2>&1; then
        fail "$h: does not compile alone with -I $INC: $(head -n 3 "$tmp/cc.log")"
        continue
    fi
    # The text the header itself contributes (line markers name its files).
    "$CC" -std=c11 -E -I "$INC" "$tmp/alone.c" 2>/dev/null |
        awk -v inc="$INC/" '/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); ours = index(f, inc) == 1; next }
                            ours' | tr '\n' ' ' >"$tmp/pp"
    for name in $FORBIDDEN; do
        grep -qw "$name" "$tmp/pp" &&
            fail "$h: names $name, which belongs in engines/gdt_engine_impl.h (never installed)"
    done
    grep -oE '\([[:space:]]*\*[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\)[[:space:]]*\(' "$tmp/pp" |
        sed -E 's/[^A-Za-z0-9_]*([A-Za-z_][A-Za-z0-9_]*).*/\1/' | LC_ALL=C sort -u >"$tmp/fnptrs"
    while read -r fp; do
        case " $CALLBACKS " in *" $fp "*) continue ;; esac
        fail "$h: declares the function pointer $fp: an installed header holds handles and" \
             "functions; an interface of function pointers belongs in engines/gdt_engine_impl.h"
    done <"$tmp/fnptrs"
    for t in $HANDLES; do
        printf '#include <%s>\nstruct %s { int probe; };\n' "$h" "$t" >"$tmp/handle.c"
        "$CC" -std=c11 -fsyntax-only -I "$INC" "$tmp/handle.c" >/dev/null 2>&1 ||
            fail "$h: defines struct $t, a handle: its members belong in engines/gdt_engine_impl.h"
    done
done
n=$(printf '%s\n' $headers | wc -l)
if [ -s "$tmp/bad" ]; then
    echo "test_public_headers: $(wc -l <"$tmp/bad") problem(s) in the $n header(s) under $INC:" >&2
    cat "$tmp/bad" >&2
    exit 1
fi
echo "test_public_headers: $n header(s) under $INC: handles and functions only"
printf '  %s\n' $headers
exit 0
