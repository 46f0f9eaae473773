#!/usr/bin/env bash
# Builds the command-line tools of the Tracy profiler that tools/tracy-check.sh needs:
# `capture` (connects to a running client and saves a .tracy file), `csvexport` (zone
# statistics of a .tracy file as CSV) and `traceinfo` (a small program written here that
# lists a capture's frame sets, thread names and plots, which csvexport does not show).
#
#   usage: tools/tracy/build-tools.sh TRACY_GIT_DIR [OUT_DIR=target/tracy-tools] [TAG=v$TRACY_VERSION]
#
# TRACY_GIT_DIR is a clone (bare or not) of https://github.com/wolfpld/tracy. TAG must be
# the release whose protocol the embedded client speaks (TRACY_VERSION in
# profiling/src/lib.rs); a server of another protocol refuses the connection.
#
# The tools are compiled directly with g++ rather than with Tracy's CMake, which fetches
# zstd, PPQSort and nlohmann/json from the network at configure time:
#   * zstd and capstone come from the distribution (libzstd-dev, libcapstone-dev). Debian's
#     capstone 4 spells the ARM64 back end ARM64_*, Tracy >= 0.12 expects capstone 6's
#     AARCH64_*; a small header maps the names (it only matters when disassembling ARM64).
#   * PPQSort (a parallel sort the server uses) is replaced by a header over std::sort:
#     the server sorts sequentially, which changes nothing in what is captured.
#   * nlohmann/json is not used by the server library, capture or csvexport.
#   * GitRef.hpp, which CMake generates, is written here.
# Only the directories the tools need are taken from the git dir (public/common, server,
# capture, csvexport, getopt); the profiler GUI is not built.
set -euo pipefail
GITDIR=${1:?usage: $0 TRACY_GIT_DIR [OUT_DIR] [TAG]}
OUT=${2:-target/tracy-tools}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
# The default tag is the one the profiling crate names.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
TAG=${3:-v$(sed -n 's/^pub const TRACY_VERSION: &str = "\(.*\)";/\1/p' "$REPO/profiling/src/lib.rs")}
SRC=$OUT/src
mkdir -p "$OUT" "$SRC" "$OUT/shim" "$OUT/obj-capture" "$OUT/obj-csvexport"

if ! { [ -e /usr/include/zstd.h ] && [ -e /usr/include/capstone/capstone.h ]; }; then
    echo "needs g++, libzstd-dev and libcapstone-dev (apt-get install g++ libzstd-dev libcapstone-dev)" >&2
    exit 1
fi

# The sources of the tools, at TAG.
git -C "$GITDIR" ls-tree -r "$TAG" -- public/common server capture csvexport getopt |
while read -r mode type sha path; do
    [ "$type" = blob ] || continue
    mkdir -p "$SRC/$(dirname "$path")"
    git -C "$GITDIR" cat-file blob "$sha" > "$SRC/$path"
done
grep -q "ProtocolVersion" "$SRC/public/common/TracyProtocol.hpp"
echo "Tracy $TAG, $(grep -o 'ProtocolVersion = [0-9]*' "$SRC/public/common/TracyProtocol.hpp")"

cat > "$OUT/shim/ppqsort.h" <<'EOF'
// Offline stand-in for PPQSort (https://github.com/GabTux/PPQSort): sequential std::sort.
#pragma once
#include <algorithm>
namespace ppqsort {
namespace execution { struct par_t {}; struct seq_t {}; inline constexpr par_t par{}; inline constexpr seq_t seq{}; }
template<class Policy, class It> void sort(Policy, It b, It e) { std::sort(b, e); }
template<class Policy, class It, class Cmp> void sort(Policy, It b, It e, Cmp c) { std::sort(b, e, c); }
template<class It> void sort(It b, It e) { std::sort(b, e); }
}
EOF
cat > "$OUT/shim/capstone-compat.h" <<'EOF'
// Capstone 4/5 (Debian) vs capstone 6 (Tracy >= 0.12) naming of the ARM64 back end.
#pragma once
#include <capstone.h>
#if CS_API_MAJOR < 6
#  define CS_ARCH_AARCH64 CS_ARCH_ARM64
#  define AARCH64_OP_IMM ARM64_OP_IMM
#  define aarch64 arm64
#endif
EOF
printf '#pragma once\nnamespace tracy { static inline const char* GitRef = "%s"; }\n' \
    "$(git -C "$GITDIR" rev-parse --short "$TAG^{commit}")" > "$OUT/shim/GitRef.hpp"

CXXFLAGS=(-std=c++20 -O2 -DNDEBUG -pthread -I"$OUT/shim" -I/usr/include/capstone
          -I"$SRC/public/common" -I"$SRC/server")
COMMON=(tracy_lz4.cpp tracy_lz4hc.cpp TracySocket.cpp TracyStackFrames.cpp TracySystem.cpp)
SERVER=(TracyBroadcast.cpp TracyMemory.cpp TracyMmap.cpp TracyPrint.cpp TracySysUtil.cpp
        TracyTaskDispatch.cpp TracyTextureCompression.cpp TracyThreadCompress.cpp TracyWorker.cpp)

gcc -O2 -c "$SRC/getopt/getopt.c" -o "$OUT/getopt.o"

# build_tool NAME OBJDIR EXTRA_DEFINES... -- PROGRAM_SOURCES...
# capture is built with TRACY_NO_STATISTICS (as its CMakeLists sets), csvexport without.
build_tool() {
    local name=$1 objdir=$2; shift 2
    local defs=() progs=() objs=() f
    while [ "$1" != "--" ]; do defs+=("$1"); shift; done; shift
    progs=("$@")
    for f in "${COMMON[@]/#/$SRC/public/common/}" "${SERVER[@]/#/$SRC/server/}" "${progs[@]}"; do
        local o="$objdir/$(basename "${f%.cpp}").o"
        g++ "${CXXFLAGS[@]}" "${defs[@]}" -include "$OUT/shim/capstone-compat.h" -c "$f" -o "$o" &
        objs+=("$o")
    done
    for f in "${objs[@]}"; do wait -n || { echo "compile failed" >&2; exit 1; }; done
    g++ -pthread -o "$OUT/$name" "${objs[@]}" "$OUT/getopt.o" -lcapstone -lzstd
    echo "built $OUT/$name"
}
build_tool capture "$OUT/obj-capture" -DTRACY_NO_STATISTICS -- \
    "$SRC/capture/src/capture.cpp" "$SRC/capture/src/CaptureOutput.cpp"
build_tool csvexport "$OUT/obj-csvexport" -- "$SRC/csvexport/src/csvexport.cpp"

# traceinfo: frame sets (e.g. "Physics"), thread names and plots of a capture. It links the
# server objects built for csvexport.
mkdir -p "$OUT/extra"
cat > "$OUT/extra/traceinfo.cpp" <<'CPP'
// traceinfo: list frame sets, threads (names + zone counts) and plots of a .tracy file.
#include <cstdio>
#include <memory>
#include <thread>
#include <chrono>
#include "TracyFileRead.hpp"
#include "TracyWorker.hpp"
int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: traceinfo FILE.tracy\n"); return 1; }
    auto f = std::unique_ptr<tracy::FileRead>(tracy::FileRead::Open(argv[1]));
    if (!f) { fprintf(stderr, "cannot open %s\n", argv[1]); return 1; }
    tracy::Worker worker(*f);
    while (!worker.AreSourceLocationZonesReady()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    printf("program: %s\ncapture: %s\nzones: %llu\n", worker.GetCaptureProgram().c_str(),
           worker.GetCaptureName().c_str(), (unsigned long long)worker.GetZoneCount());
    printf("-- frame sets\n");
    for (auto fd : worker.GetFrames()) {
        const char* name = fd->name == 0 ? "Frame (base)" : worker.GetString(fd->name);
        size_t n = worker.GetFrameCount(*fd);
        double sum = 0; size_t m = 0;
        for (size_t i = 0; i < n; i++) { auto t = worker.GetFrameTime(*fd, i); if (t > 0) { sum += t; m++; } }
        printf("  %-20s frames %zu  continuous %d  mean %.3f ms\n", name, n, fd->continuous, m ? sum / m / 1e6 : 0.0);
    }
    printf("-- threads\n");
    for (auto td : worker.GetThreadData()) {
        printf("  tid %-8llu %-24s zones %llu  top-level %zu\n", (unsigned long long)td->id,
               worker.GetThreadName(td->id), (unsigned long long)td->count, td->timeline.size());
    }
    printf("-- plots\n");
    for (auto p : worker.GetPlots()) {
        const char* name = p->type == tracy::PlotType::SysTime ? "CPU usage (sys)" :
                           p->type == tracy::PlotType::Memory ? "Memory" : worker.GetString(p->name);
        double last = p->data.empty() ? 0 : p->data.back().val;
        printf("  %-24s points %zu  min %.0f  max %.0f  last %.0f\n", name, (size_t)p->data.size(), p->min, p->max, last);
    }
    return 0;
}
CPP
g++ "${CXXFLAGS[@]}" -include "$OUT/shim/capstone-compat.h" "$OUT/extra/traceinfo.cpp" \
    $(ls "$OUT"/obj-csvexport/*.o | grep -v '/csvexport.o$') "$OUT/getopt.o" -lcapstone -lzstd -o "$OUT/traceinfo"
echo "built $OUT/traceinfo"

"$OUT/capture" -h 2>&1 | head -3 || true
# Use:  $OUT/capture -o x.tracy -a 127.0.0.1 -s 10   (it waits for the client to listen)
#       $OUT/csvexport x.tracy ; $OUT/traceinfo x.tracy
