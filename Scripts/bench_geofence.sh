#!/usr/bin/env bash
# Benchmarks the geofencing spatial index and monitor against a linear scan of the same data.
# Usage: Scripts/bench_geofence.sh [runs]   (release build; prints each run, then take the medians)
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks/GeofenceBench"
swift build -c release --product GeofenceBench >&2
runs="${1:-5}"
for i in $(seq 1 "$runs"); do
    echo "run $i"
    .build/release/GeofenceBench
done
