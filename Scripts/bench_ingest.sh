#!/usr/bin/env bash
# Ingest benchmark of `waymark serve` over loopback HTTP (release build), with the raw insert
# ceiling of the same database and the fence comparison against PostGIS measured in the same run.
#
# Usage: [WAYMARK_BIN=path] [WAYMARK_BENCH_BIN=path] [KINDS="sqlite postgres"] [POSTGIS=0] Scripts/bench_ingest.sh [RUNS=3] [SECONDS=10]
#   PostgreSQL too when WAYMARK_BENCH_POSTGRES_URL (or WAYMARK_TEST_POSTGRES_URL) is set; each run
#   gets a fresh schema (needs `psql`). PostGIS must be installed for the fence comparison.
#
# Per store and run (fresh database each time):
#   ceiling  `waymark-bench store`: the load's rows straight through Store.ingest, 50 writers
#   max      `waymark-bench load`: 50 devices, 500-point native batches, as fast as answered
#            (after a 2-second warm-up that is not counted: connections, the server loading fences)
#   half     the same at half of this run's max rate: p99 latency
#   fences   max again with 100,000 fences stored (`waymark-bench seed-fences`): the drop
# then `waymark-bench fences`: FenceEngine vs PostGIS ST_DWithin (100,000 fences and points).
# `waymark-bench` is the Benchmarks/ServerBench package's tool (WAYMARK_BENCH_BIN to use a copy instead).
# Prints every run (JSON lines, with `uptime` load and the server's and generator's CPU), then medians.
# Exits 1 when a median is past its checked-in threshold (Benchmarks/ServerBench/Thresholds.json).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
DURATION="${2:-10}"
DEVICES=50
BATCH=500
FENCES=100000
WARMUP=2
PG_URL="${WAYMARK_BENCH_POSTGRES_URL:-${WAYMARK_TEST_POSTGRES_URL:-}}"

# WAYMARK_BIN: a release binary to measure instead of building one (e.g. a copy kept while the sources change).
if [ -n "${WAYMARK_BIN:-}" ]; then
    BIN="$WAYMARK_BIN"
else
    swift build -c release --product waymark >&2
    BIN="$PWD/.build/release/waymark"
fi
if [ -n "${WAYMARK_BENCH_BIN:-}" ]; then
    BENCH="$WAYMARK_BENCH_BIN"
else
    swift build -c release --package-path Benchmarks/ServerBench >&2
    BENCH="$PWD/Benchmarks/ServerBench/.build/release/waymark-bench"
fi
TMP="$(mktemp -d)"
RESULTS="$TMP/results.jsonl"
SERVER_PID=""
export WAYMARK_ADMIN_TOKEN="wma_bench_$(date +%s)_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"   # >= 24 bytes
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
TICKS="$(getconf CLK_TCK)"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
load1() { awk '{print $1}' /proc/loadavg; }

# A load generator is one flood from one address (and, for single points, one device): the rate limits
# (`--rate-limit-per-address`, `--rate-limit-per-device`) are turned off when the binary has them.
RATE_ARGS=()
if "$BIN" serve --help 2>/dev/null | grep -q -- --rate-limit-per-device; then
    RATE_ARGS=(--rate-limit-per-address off --rate-limit-per-device off)
fi
# start_server DATABASE: starts `waymark serve` on a free port; sets SERVER_PID and SERVER_URL.
start_server() {
    local log="$TMP/server.$RANDOM.log"
    "$BIN" serve --port 0 --database "$1" "${RATE_ARGS[@]}" > "$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        SERVER_URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | head -1 || true)"
        if [ -n "$SERVER_URL" ]; then return 0; fi
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$log" >&2; exit 1; fi
        sleep 0.1
    done
    echo "server did not start" >&2; cat "$log" >&2; exit 1
}

stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }

# fresh_database KIND RUN NAME: prints a new SQLite path or a URL of a new PostgreSQL schema.
fresh_database() {
    if [ "$1" = sqlite ]; then
        echo "$TMP/$3-$2.sqlite"
    else
        local schema="bench_$(date +%s)_$RANDOM"
        psql "$PG_URL" -qc "CREATE SCHEMA $schema" >&2
        echo "$PG_URL$( [[ "$PG_URL" == *\?* ]] && echo '&' || echo '?' )search_path=$schema"
    fi
}

# record KIND RUN METRIC JSON [SERVER_CPU_SECONDS]: appends one result line and echoes it.
record() {
    local line
    line="$(python3 -c 'import json,sys; d=json.loads(sys.argv[4]); d.update(kind=sys.argv[1], run=int(sys.argv[2]), metric=sys.argv[3], load1=float(sys.argv[5]))
if sys.argv[6]: d["serverCPUSeconds"]=float(sys.argv[6]); d["serverCores"]=float(sys.argv[6])/d["seconds"]
print(json.dumps(d, sort_keys=True))' "$1" "$2" "$3" "$4" "$(load1)" "${5:-}")" || return 1
    echo "$line" | tee -a "$RESULTS"
}

# load_run DATABASE RATE: runs the load generator against a new server on DATABASE; prints its JSON
# followed by a tab and the server's CPU seconds during the load.
load_run() {
    start_server "$1"
    local before after json
    # The server's CPU is read when the generator's 2-second warm-up ends, and at the end.
    ( sleep "$WARMUP"; cpu_ticks "$SERVER_PID" > "$TMP/cpu-before" ) &
    local reader=$!
    json="$("$BENCH" load --server "$SERVER_URL" --admin-token "$WAYMARK_ADMIN_TOKEN" --devices "$DEVICES" \
        --batch "$BATCH" --seconds "$DURATION" --rate "$2" --warmup "$WARMUP")"
    after="$(cpu_ticks "$SERVER_PID")"
    wait "$reader"
    before="$(cat "$TMP/cpu-before")"
    stop_server
    printf '%s\t%s\n' "$json" "$(python3 -c "print(($after - $before) / $TICKS)")"
}

# KINDS: the stores to measure (default sqlite, and postgres when a URL is set); POSTGIS=0 skips the PostGIS comparison.
if [ -z "${KINDS:-}" ]; then
    KINDS="sqlite"
    if [ -n "$PG_URL" ]; then KINDS="sqlite postgres"; fi
fi
echo "== $(nproc) cores; uptime: $(uptime)" >&2
for kind in $KINDS; do
    for run in $(seq 1 "$RUNS"); do
        echo "== $kind run $run" >&2
        record "$kind" "$run" ceiling "$("$BENCH" store --database "$(fresh_database "$kind" "$run" store)" \
            --devices "$DEVICES" --batch "$BATCH" --seconds "$DURATION")"
        IFS=$'\t' read -r json cpu <<< "$(load_run "$(fresh_database "$kind" "$run" max)" 0)"
        record "$kind" "$run" max "$json" "$cpu"
        half="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["pointsPerSecond"] / 2)' "$json")"
        IFS=$'\t' read -r json cpu <<< "$(load_run "$(fresh_database "$kind" "$run" half)" "$half")"
        record "$kind" "$run" half "$json" "$cpu"
        db="$(fresh_database "$kind" "$run" fences)"
        "$BENCH" seed-fences --database "$db" --count "$FENCES" > /dev/null
        IFS=$'\t' read -r json cpu <<< "$(load_run "$db" 0)"
        record "$kind" "$run" fences "$json" "$cpu"
    done
done
if [ -n "$PG_URL" ] && [ "${POSTGIS:-1}" != 0 ]; then
    for run in $(seq 1 "$RUNS"); do
        echo "== fence evaluation vs PostGIS, run $run" >&2
        record postgis "$run" fences-vs-postgis "$("$BENCH" fences --postgres "$PG_URL" --fences "$FENCES" --points 100000)" \
            || echo "PostGIS comparison failed (is postgresql-15-postgis-3 installed?)" >&2
    done
fi
echo "== uptime after: $(uptime)" >&2

EXPECT_POSTGIS=0
if [ -n "$PG_URL" ] && [ "${POSTGIS:-1}" != 0 ]; then EXPECT_POSTGIS=1; fi
python3 - "$RESULTS" Benchmarks/ServerBench/Thresholds.json "$EXPECT_POSTGIS" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
limits = json.load(open(sys.argv[2]))
missed = []
def check(ok, what):
    if not ok: missed.append(what)  # a missing figure (nan) fails every comparison, so it counts as missed
def med(kind, metric, key):
    v = [r[key] for r in rows if r["kind"] == kind and r["metric"] == metric and key in r]
    return statistics.median(v) if v else float("nan")
print("\nmedians of %d run(s); 50 devices x 500-point native batches over loopback HTTP" % max(r["run"] for r in rows))
for kind in ("sqlite", "postgres"):
    if not any(r["kind"] == kind for r in rows): continue
    limit = limits[kind]
    ceiling, top = med(kind, "ceiling", "pointsPerSecond"), med(kind, "max", "pointsPerSecond")
    fenced = med(kind, "fences", "pointsPerSecond")
    drop = 100 * (1 - fenced / top) if top > 0 else float("nan")
    p99 = med(kind, "half", "latencyP99Ms")
    check(top >= limit["minHTTPPointsPerSecond"], f"{kind} HTTP {top:.0f} points/s < {limit['minHTTPPointsPerSecond']}")
    check(drop <= limit["maxFenceDropPercent"], f"{kind} fence drop {drop:.1f}% > {limit['maxFenceDropPercent']}%")
    check(p99 <= limit["maxHalfRateP99Ms"], f"{kind} p99 at half rate {p99:.1f} ms > {limit['maxHalfRateP99Ms']} ms")
    print(f"{kind:9s} HTTP {top:9.0f} points/s (floor {limit['minHTTPPointsPerSecond']}) | direct store ceiling {ceiling:9.0f} points/s | "
          f"HTTP/ceiling {top / ceiling if ceiling > 0 else float('nan'):.2f}")
    print(f"{'':9s} p99 at half max {med(kind, 'half', 'latencyP99Ms'):.1f} ms (p50 {med(kind, 'half', 'latencyP50Ms'):.1f} ms; "
          f"max-rate p99 {med(kind, 'max', 'latencyP99Ms'):.1f} ms) | server {med(kind, 'max', 'serverCores'):.2f} cores, "
          f"generator {med(kind, 'max', 'generatorCores'):.2f} cores | failures {sum(r.get('failures', 0) for r in rows if r['kind'] == kind)}")
    print(f"{'':9s} with 100,000 fences {fenced:9.0f} points/s: drop {drop:.1f}% (ceiling {limit['maxFenceDropPercent']}%)")
if sys.argv[3] == "1" and not any(r["kind"] == "postgis" for r in rows):
    missed.append("the PostGIS comparison did not run (is postgresql-15-postgis-3 installed? POSTGIS=0 skips it)")
if any(r["kind"] == "postgis" for r in rows):
    ratio = med('postgis', 'fences-vs-postgis', 'ratio')
    check(ratio >= limits["postgis"]["minEngineToPostGISRatio"],
          f"FenceEngine {ratio:.1f}x PostGIS < {limits['postgis']['minEngineToPostGISRatio']}x")
    print(f"fences    FenceEngine {med('postgis', 'fences-vs-postgis', 'enginePointsPerSecond'):.0f} points/s vs PostGIS "
          f"{med('postgis', 'fences-vs-postgis', 'postgisPointsPerSecond'):.0f} points/s: "
          f"{ratio:.1f}x (floor {limits['postgis']['minEngineToPostGISRatio']}x); matches "
          f"{med('postgis', 'fences-vs-postgis', 'engineMatches'):.0f} vs {med('postgis', 'fences-vs-postgis', 'postgisMatches'):.0f}")
print("load average (1 min) during runs: " + ", ".join(f"{r['load1']:.1f}" for r in rows))
for what in missed: print(f"!! past the checked-in threshold (Benchmarks/ServerBench/Thresholds.json): {what}", file=sys.stderr)
sys.exit(1 if missed else 0)
PY
