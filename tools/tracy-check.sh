#!/usr/bin/env bash
# Checks the Tracy build the way a user meets it: builds impetus-bench with the `tracy`
# feature, captures a few seconds of `pile` at 2 threads with Tracy's own `capture`, and
# asserts that what arrives is what the README's "Profile in Tracy" section lists:
#   * the start-up line naming the address and the Tracy release (TRACY_VERSION);
#   * every zone of the README's zone table marked "yes" for pile, and no zone missing
#     from the table;
#   * the "Physics" frame set, every plot of the README's plot table, and the worker
#     thread names `impetus-worker-0` and `impetus-worker-1`.
# Prints the zone table (count and mean ms per zone) of the capture.
#
#   usage: TRACY_TOOLS=DIR tools/tracy-check.sh [SECONDS=6]
#
# DIR holds `capture`, `csvexport` and `traceinfo` of the matching Tracy release, as built
# by tools/tracy/build-tools.sh (default DIR: target/tracy-tools). The capture goes to
# target/tracy-check/. Uses port 8086 on 127.0.0.1: run one check at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
TOOLS=${TRACY_TOOLS:-$REPO/target/tracy-tools}
SECONDS_TO_CAPTURE=${1:-6}
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
OUT=$REPO/target/tracy-check
mkdir -p "$OUT"

for tool in capture csvexport traceinfo; do
    if [ ! -x "$TOOLS/$tool" ]; then
        echo "tracy-check: no $TOOLS/$tool; build the tools with tools/tracy/build-tools.sh" >&2
        exit 2
    fi
done

fail=0
problem() {
    echo "tracy-check: $*" >&2
    fail=1
}

version=$(sed -n 's/^pub const TRACY_VERSION: &str = "\(.*\)";/\1/p' profiling/src/lib.rs)
cargo build -q --release -p impetus-scenes --features tracy --bin impetus-bench
BENCH=$TARGET/release/impetus-bench

# `capture` waits for the client to listen; the client then sends from its first step on.
"$TOOLS/capture" -o "$OUT/pile.tracy" -a 127.0.0.1 -s "$SECONDS_TO_CAPTURE" -f >"$OUT/capture.log" 2>&1 &
capture=$!
"$BENCH" run pile --steps 1000000 --threads 2 >"$OUT/bench.out" 2>"$OUT/bench.err" &
bench=$!
wait "$capture" || problem "capture failed: $(tail -c 300 "$OUT/capture.log")"
kill "$bench" 2>/dev/null || true
wait "$bench" 2>/dev/null || true

expected="listening on 127.0.0.1:8086, connect with Tracy v$version"
if [ "$(head -n 1 "$OUT/bench.err")" != "$expected" ]; then
    problem "the first line on stderr is not '$expected'"
fi

"$TOOLS/csvexport" "$OUT/pile.tracy" >"$OUT/zones.csv"
"$TOOLS/traceinfo" "$OUT/pile.tracy" >"$OUT/traceinfo.txt"

# The README's tables, between their marker comments: the first backticked name of a row.
table() {
    sed -n "/<!-- tracy-$1 -->/,/<!-- \/tracy-$1 -->/p" README.md | grep '^| `' || true
}
zones_in_pile=$(table zones | awk -F'|' '$4 ~ /yes/' | sed 's/^| `\([^`]*\)`.*/\1/')
zones_listed=$(table zones | sed 's/^| `\([^`]*\)`.*/\1/')
plots_listed=$(table plots | sed 's/^| `\([^`]*\)`.*/\1/')
[ -n "$zones_in_pile" ] || problem "no zone table in README.md"
[ -n "$plots_listed" ] || problem "no plot table in README.md"

# csvexport: name,src_file,src_line,total_ns,total_perc,counts,mean_ns,...
arrived=$(tail -n +2 "$OUT/zones.csv" | cut -d, -f1 | sort -u)
while IFS= read -r zone; do
    grep -qxF "$zone" <<<"$arrived" || problem "zone '$zone' (README) did not arrive"
done <<<"$zones_in_pile"
while IFS= read -r zone; do
    grep -qxF "$zone" <<<"$zones_listed" || problem "zone '$zone' arrived but is not in the README"
done <<<"$arrived"

grep -Eq '^  Physics +frames [1-9]' "$OUT/traceinfo.txt" || problem "no Physics frames"
while IFS= read -r plot; do
    grep -Eq "^  $plot +points [1-9]" "$OUT/traceinfo.txt" || problem "plot '$plot' did not arrive"
done <<<"$plots_listed"
for thread in impetus-worker-0 impetus-worker-1; do
    grep -Eq "^  tid [0-9]+ +$thread " "$OUT/traceinfo.txt" || problem "no thread named $thread"
done

echo "pile, 2 threads, ${SECONDS_TO_CAPTURE} s captured with Tracy v$version:"
grep -E '^  (Physics|tid|[a-z])' "$OUT/traceinfo.txt" | grep -v 'Tracy Symbol' || true
echo
# In the README's order; a name at two places (Join Wait) gets a row per place.
printf '| %-22s | %-24s | %8s | %8s |\n' zone where count "mean ms"
printf '|%s|%s|%s|%s|\n' ------------------------ -------------------------- ---------- ----------
while IFS= read -r zone; do
    awk -F, -v z="$zone" '$1 == z {
        n = split($2, path, "/")
        printf "| %-22s | %-24s | %8d | %8.3f |\n", $1, path[n] ":" $3, $6, $7 / 1e6
    }' "$OUT/zones.csv"
done <<<"$zones_listed"
if [ "$fail" != 0 ]; then
    echo "tracy-check: FAILED (files in $OUT)" >&2
    exit 1
fi
echo "tracy-check: ok"
