#!/usr/bin/env bash
# Fuzzes the GPX reader with libFuzzer (swiftc -sanitize=fuzzer,address), seeded from the corpus.
#
# Usage: Scripts/fuzz_gpx.sh [RUNS] [extra libFuzzer flags...]   (default RUNS: 1000000)
# Crashes, timeouts and out-of-memory inputs are written to .build/fuzz/artifacts/;
# copy each into Tests/WaymarkGeoTests/Fixtures/fuzz-regressions/ so the test suite keeps them.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-1000000}"
shift || true
OUT=.build/fuzz
mkdir -p "$OUT/corpus" "$OUT/artifacts"
cp Tests/WaymarkGeoTests/Fixtures/corpus/*/*.gpx "$OUT/corpus/" 2>/dev/null || true
cp Tests/WaymarkGeoTests/Fixtures/fuzz-regressions/* "$OUT/corpus/" 2>/dev/null || true

echo "== building the fuzzer"
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -package-name waymark -module-name FuzzGPX \
    $(find Sources/WaymarkGeo -name '*.swift' | sort) Fuzz/FuzzGPX.swift -o "$OUT/fuzz-gpx"

echo "== fuzzing for $RUNS runs"
start=$(date +%s)
"$OUT/fuzz-gpx" "$OUT/corpus" -runs="$RUNS" -rss_limit_mb=512 -timeout=10 -max_len=65536 \
    -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$@"
echo "== done: $RUNS runs in $(( $(date +%s) - start )) s; artifacts (if any) in $OUT/artifacts/"
