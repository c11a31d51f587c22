#!/usr/bin/env bash
# Fuzzes the server's ingest decoders (native, OwnTracks, OsmAnd, Traccar JSON) and the point
# validator in-process with mutated bodies: each must decode or fail with a 4xx error.
#
# Usage: Scripts/fuzz_ingest.sh [COUNT=1000000] [SEED=1]
# Exits non-zero if a body crashed the process or produced anything but a 4xx error.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${1:-1000000}"
SEED="${2:-1}"
swift build -c release --package-path Benchmarks/ServerBench >&2
echo "== fuzzing $COUNT bodies (seed $SEED)" >&2
Benchmarks/ServerBench/.build/release/waymark-bench fuzz --count "$COUNT" --seed "$SEED"
