#!/usr/bin/env bash
# The pyramid through the C ABI against the Rust API: builds the release static library
# and impetus-bench, compiles examples/pyramid.c against the library, then alternates the
# two for ROUNDS rounds of STEPS steps at THREADS threads, printing each one's median
# ms/step and state hash (the same hash: the same bodies, in the same order).
#
#   capi/bench-pyramid.sh [STEPS = 600] [THREADS = 1] [ROUNDS = 5]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-600}
threads=${2:-1}
rounds=${3:-5}
target=${CARGO_TARGET_DIR:-target}
cargo build -q --release -p impetus-scenes --bin impetus-bench
cargo build -q --release -p impetus-capi
cc -std=c11 -Wall -Wextra -Werror -pedantic -O2 -Icapi/include capi/examples/pyramid.c \
    "$target/release/libimpetus.a" -lpthread -ldl -lm -o "$target/release/pyramid-c"
for r in $(seq 1 "$rounds"); do
    c=$("$target/release/pyramid-c" "$steps" "$threads")
    rust=$("$target/release/impetus-bench" run pyramid --steps "$steps" --threads "$threads" 2>/dev/null)
    c_ms=$(echo "$c" | grep -o 'median [0-9.]*' | cut -d' ' -f2)
    c_hash=$(echo "$c" | grep -o 'state hash [0-9a-f]*' | cut -d' ' -f3)
    rust_ms=$(echo "$rust" | grep '^  ms/step  ' | awk '{print $3}')
    rust_hash=$(echo "$rust" | grep 'state hash' | awk '{print $3}')
    echo "round $r: C ABI $c_ms ms/step ($c_hash)   Rust API $rust_ms ms/step ($rust_hash)"
    if [ "$c_hash" != "$rust_hash" ]; then
        echo "state hashes differ" >&2
        exit 1
    fi
done
