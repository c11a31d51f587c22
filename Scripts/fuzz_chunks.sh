#!/usr/bin/env bash
# Fuzzes the chunk codec PostgreSQL keeps history in (PositionChunkCodec) with libFuzzer
# (swiftc -sanitize=fuzzer,address), seeded with valid chunks.
#
# Usage: Scripts/fuzz_chunks.sh [RUNS] [extra libFuzzer flags...]   (default RUNS: 1000000)
# Crashes, timeouts and out-of-memory inputs are written to .build/fuzz-chunks/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-1000000}"
shift || true
OUT=.build/fuzz-chunks
mkdir -p "$OUT/src" "$OUT/corpus" "$OUT/artifacts"
# One module: WaymarkGeo's sources, and the two server files without their `import WaymarkGeo`.
for file in Sources/WaymarkServer/Model/Position.swift Sources/WaymarkServer/Store/PositionChunkCodec.swift; do
    grep -v '^import WaymarkGeo$' "$file" > "$OUT/src/$(basename "$file")"
done
# Seeds: valid chunks of 1 to 300 points, with and without optional values, written by Fuzz/ChunkSeeds.swift.
echo "== writing seed chunks"
swiftc -O -parse-as-library -package-name waymark -module-name ChunkSeeds $(find Sources/WaymarkGeo -name '*.swift' | sort) \
    "$OUT/src/Position.swift" "$OUT/src/PositionChunkCodec.swift" Fuzz/ChunkSeeds.swift -o "$OUT/chunk-seeds"
"$OUT/chunk-seeds" "$OUT/corpus"

echo "== building the fuzzer"
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -package-name waymark -module-name FuzzChunks \
    $(find Sources/WaymarkGeo -name '*.swift' | sort) "$OUT/src/Position.swift" "$OUT/src/PositionChunkCodec.swift" \
    Fuzz/FuzzPositionChunk.swift -o "$OUT/fuzz-chunks"

echo "== fuzzing for $RUNS runs"
start=$(date +%s)
"$OUT/fuzz-chunks" "$OUT/corpus" -runs="$RUNS" -rss_limit_mb=512 -timeout=10 -max_len=65536 \
    -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$@"
echo "== done: $RUNS runs in $(( $(date +%s) - start )) s; artifacts (if any) in $OUT/artifacts/"
