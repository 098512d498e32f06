#!/usr/bin/env bash
# No include cycles between modules (issue 35, item 5).
#
#   test_include_cycles.sh [--includes] [--known FILE] SOURCE_DIR [FOLDER...]
#
# A module is one .c file together with its own header (gdt_X.h or X.h
# beside X.c).  Module A depends on module B when A's .c or own header
#   - calls a non-static function that B.c defines (headers shared by
#     several .c files, such as cudnn/gdt_cudnn.h, hide who calls whom
#     from the include lines, so the calls themselves count).  An object
#     named without a call (an ops table, a function put in one) is the
#     table way of reaching a module and makes no edge;
#   - with --includes also when it includes B's own header and defines
#     none of the functions declared there (a header several .c files
#     implement is theirs, not B's): this adds the type-only includes.
# Comments and string literals are ignored.  FOLDERs default to those of
# engines harness reports cli that exist under SOURCE_DIR; all .c files
# below them count.  Each set of modules that reach one another (a
# strongly connected component of more than one module) is a cycle: the
# test lists it with the names behind each of its edges and exits 1.
# --known FILE names cycles not broken yet, one a line (its modules in
# the order printed, # starts a comment): those are reported, not failed,
# and a listed cycle that is gone fails too, so the list only shrinks.
# Exit 0 when there is none (beyond the known ones), 2 on bad usage.
set -euo pipefail

usage() {
    echo "usage: test_include_cycles.sh [--includes] [--known FILE] SOURCE_DIR [FOLDER...]" >&2
    exit 2
}
includes=0 known=/dev/null
while [[ ${1-} == --* ]]; do
    case $1 in
        --includes) includes=1; shift ;;
        --known) [[ $# -ge 2 && -f $2 ]] || usage; known=$(realpath "$2"); shift 2 ;;
        *) usage ;;
    esac
done
[[ $# -ge 1 && -d $1 ]] || usage
src=$1
shift
folders=("$@")
if [[ ${#folders[@]} -eq 0 ]]; then
    for f in engines harness reports cli; do
        [[ -d $src/$f ]] && folders+=("$f")
    done
fi
cd "$src"
for f in "${folders[@]}"; do
    if [[ ! -d $f ]]; then
        echo "test_include_cycles: $src/$f: no such folder" >&2
        exit 2
    fi
done

mapfile -t cfiles < <(find "${folders[@]}" -name '*.c' | LC_ALL=C sort)
if [[ ${#cfiles[@]} -eq 0 ]]; then
    echo "test_include_cycles: no .c files under ${folders[*]}" >&2
    exit 2
fi

# One line per module file: "<module> <file>", the .c and its own header.
modfiles() {
    local c dir base
    for c in "${cfiles[@]}"; do
        dir=$(dirname "$c") base=$(basename "$c" .c)
        echo "$c $c"
        for h in "$dir/gdt_$base.h" "$dir/$base.h"; do
            [[ -f $h ]] && echo "$c $h"
        done
    done
    return 0
}

# grep, where finding nothing is no error.
g() { grep "$@" || [[ $? -eq 1 ]]; }

# The text of a file without comments and string/char literals.
strip() {
    sed -e ':a' -e '/\/\*/{ /\*\//!{N;ba' -e '}; s:/\*.*\*/: :g;}' \
        -e 's://.*$::' -e 's:"\([^"\\]\|\\.\)*":"":g' \
        -e "s:'\\([^'\\\\]\\|\\\\.\\)*':'':g" "$1"
}

# "DEF <module> <name>": non-static definitions at column 0 in each .c.
# "USE <module> <name>": every gdt_ name in the module's files.
# "INC <module> <header path as written>": its quoted includes.
facts() {
    local mod file
    while read -r mod file; do
        if [[ $file == *.c ]]; then
            strip "$file" | g -E '^[A-Za-z_]' | g -vE '^(static|typedef|extern|#)' |
                g -vE ';[[:space:]]*$' |
                g -oE '\bgdt_[A-Za-z0-9_]*[[:space:]]*\(' |
                sed -E "s/[[:space:]]*[(]\$//; s|^|DEF $mod |"
        fi
        strip "$file" | g -oE '\bgdt_[A-Za-z0-9_]*[[:space:]]*\(' |
            sed -E "s/[[:space:]]*[(]\$//" | LC_ALL=C sort -u | sed "s|^|USE $mod |"
        if [[ $file == *.h ]]; then
            strip "$file" | g -oE '\bgdt_[A-Za-z0-9_]*[[:space:]]*\(' |
                sed -E "s/[[:space:]]*[(]\$//" | LC_ALL=C sort -u | sed "s|^|DECL $file |"
        fi
        g -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "$file" |
            sed -E "s|.*\"(.*)\"|INC $mod $file \\1|"
    done < <(modfiles)
}

report=$(facts | awk -v includes=$includes -v modlist="$(modfiles)" '
function owner_of_header(from, inc,   d, p) {
    # a quoted include is looked up beside the including file, then under
    # each module folder (the include paths: engines/, harness/, ...)
    d = from; sub(/\/[^\/]*$/, "", d)
    p = d "/" inc
    if (p in hdr) { resolved = p; return hdr[p] }
    for (t in top) { p = t "/" inc; if (p in hdr) { resolved = p; return hdr[p] } }
    return ""
}
BEGIN {
    n = split(modlist, l, "\n")
    for (i = 1; i <= n; i++) {
        split(l[i], w, " ")
        if (w[2] ~ /\.h$/) hdr[w[2]] = w[1]
        if (!(w[1] in id)) { id[w[1]] = ++nm; name[nm] = w[1] }
        t = w[1]; sub(/\/.*$/, "", t); top[t] = 1
    }
}
$1 == "DEF" { if (!($3 in def)) def[$3] = $2 }
$1 == "USE" { use[$2, $3] = 1; users[$3] = users[$3] " " $2 }
$1 == "DECL" { decl[$2] = decl[$2] " " $3 }
$1 == "INC" && includes { inc[++ni] = $2 " " $3 " " $4 }
function edge(a, b, why) {
    i = id[a]; j = id[b]
    if (!((i, j) in why_of)) why_of[i, j] = why
    else if (index(" " why_of[i, j] " ", " " why " ") == 0) why_of[i, j] = why_of[i, j] " " why
    reach[i, j] = 1
}
function implements(mod, h,   k, x, d) {
    k = split(decl[h], d, " ")
    for (x = 1; x <= k; x++) if (def[d[x]] == mod) return 1
    return 0
}
END {
    for (x = 1; x <= ni; x++) {
        split(inc[x], w, " ")
        o = owner_of_header(w[2], w[3]); p = resolved
        if (o != "" && o != w[1] && !implements(w[1], p)) edge(w[1], o, "#include \"" w[3] "\"")
    }
    for (s in def) {
        k = split(users[s], u, " ")
        for (x = 1; x <= k; x++) if (u[x] != def[s]) edge(u[x], def[s], s)
    }
    for (k = 1; k <= nm; k++) for (i = 1; i <= nm; i++) if ((i, k) in reach)
        for (j = 1; j <= nm; j++) if ((k, j) in reach) reach[i, j] = 1
    cycles = 0
    for (i = 1; i <= nm; i++) {
        if (done[i] || !((i, i) in reach)) continue
        members = ""; cnt = 0
        for (j = i; j <= nm; j++)
            if (j == i || ((i, j) in reach && (j, i) in reach)) {
                done[j] = 1; m[++cnt] = j; members = members " " name[j]
            }
        if (cnt < 2) continue
        cycles++
        printf "cycle %d:%s\n", cycles, members
        for (x = 1; x <= cnt; x++) for (y = 1; y <= cnt; y++)
            if ((m[x], m[y]) in why_of)
                printf "  %s -> %s: %s\n", name[m[x]], name[m[y]], why_of[m[x], m[y]]
    }
    printf "%d include cycle(s) among %d modules\n", cycles, nm
}')

# Cycles found: one line of members each; those in the known list pass.
found=$(sed -n 's/^cycle [0-9]*: //p' <<<"$report")
listed=$(sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$known" | g -v '^$')
echo "$report"
status=0
while IFS= read -r c; do
    [[ -z $c ]] && continue
    if grep -qxF -- "$c" <<<"$listed"; then
        echo "known, not broken yet: $c"
    else
        echo "FAIL: new cycle: $c" >&2
        status=1
    fi
done <<<"$found"
while IFS= read -r c; do
    [[ -z $c ]] && continue
    if ! grep -qxF -- "$c" <<<"$found"; then
        echo "FAIL: $known lists a cycle that is gone (or changed): $c; remove it" >&2
        status=1
    fi
done <<<"$listed"
exit $status
