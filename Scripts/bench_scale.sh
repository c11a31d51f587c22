#!/usr/bin/env bash
# The stores at scale: each store filled in bulk to SIZE points over 1,000 devices (one point a minute per
# device, ending now: 10^8 points are 69 days of every device), then measured through `waymark serve`
# (release): single-point ingest (wrk, OwnTracks /pub, 16 connections, 10 s), the last position of a
# device, one device-day's track (1,440 points), a GPX export of 10,000 points, the dashboard's device
# list (1,000 devices with their last positions), and disk bytes per point (indexes included). On PostgreSQL
# `waymark compact` then moves the finished days into chunks (timed), as the server does an hour after each day.
#
# Usage: [WAYMARK_BIN=path] [STORES="sqlite postgres"] Scripts/bench_scale.sh [SIZES="1000000 100000000"]
#   PostgreSQL when WAYMARK_BENCH_POSTGRES_URL (or WAYMARK_TEST_POSTGRES_URL) is set. An empty store (only the
#   ingest device) is measured first in the same run, for the ingest comparison. Needs sqlite3, psql, wrk,
#   python3. 10^8 points take about 7 GB (SQLite) or 13 GB (PostgreSQL) under DATA_DIR (default /var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES="${1:-${SIZES:-1000000 100000000}}"
STORES="${STORES:-sqlite postgres}"
BIN="${WAYMARK_BIN:-$PWD/.build/release/waymark}"
PG_URL="${WAYMARK_BENCH_POSTGRES_URL:-${WAYMARK_TEST_POSTGRES_URL:-}}"
DATA_DIR="${DATA_DIR:-/var/tmp}"
DEVICES=1000
TMP="$(mktemp -d "$DATA_DIR/waymark-scale.XXXXXX")"
SERVER_PID=""
export WAYMARK_ADMIN_TOKEN="wma_scale_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
NOW_MS=$(( $(date +%s) / 60 * 60 * 1000 ))

# A load generator is one flood from one address (and, for single points, one device): the rate limits
# (`--rate-limit-per-address`, `--rate-limit-per-device`) are turned off when the binary has them.
RATE_ARGS=()
if "$BIN" serve --help 2>/dev/null | grep -q -- --rate-limit-per-device; then
    RATE_ARGS=(--rate-limit-per-address off --rate-limit-per-device off)
fi
start_server() {
    "$BIN" serve --port 0 --database "$1" "${RATE_ARGS[@]}" > "$TMP/server.log" 2>&1 &
    SERVER_PID=$!
    URL=""
    for _ in $(seq 1 600); do
        URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$TMP/server.log" | head -1 || true)"
        [ -n "$URL" ] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/server.log" >&2; exit 1; }
        sleep 0.2
    done
    echo "server did not start" >&2; exit 1
}
stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }

# fill KIND DATABASE SIZE: the bulk load, in SQL (not through the server: 10^8 points over HTTP would take hours).
fill() {
    local kind="$1" db="$2" size="$3" per=$(( $3 / DEVICES ))
    local start=$(( NOW_MS - per * 60000 ))
    # Device i's point k (row r = i * per + k): one a minute, a slow walk around a point of its own, with the
    # noise of a phone (@h, a hash of r): coordinates, altitude and speed with all the digits iOS gives (no
    # short decimal, the chunk codec's worst case), whole-metre accuracies, 0.1 m vertical accuracies and
    # 0.1° courses, a slowly draining battery, and a receive time 0.2–1 s after the fix.
    local select="SELECT @device, $start + (@r % $per) * 60000,
        46.0 + (@r / $per % 100) * 0.01 + (@r % $per % 1000) * 0.00001 + (@h % 1999) * 0.0000000123456789,
        14.0 + (@r / $per / 100) * 0.01 + (@r % $per % 997) * 0.00001 + (@h % 2003) * 0.0000000098765432,
        300.0 + (@r % 50) + (@h % 977) * 0.00123456789, 3.0 + (@h % 30), 2.0 + (@h % 80) * 0.1, (@h % 1000) * 0.0123456789,
        (@h % 3600) * 0.1, (100 - (@r % $per) / 1500 % 100) / 100.0, @false, NULL, 'fused',
        $start + (@r % $per) * 60000 + 200 + (@h % 800)"
    select="${select//@h/((@r * 2654435761) % 1000003)}"
    if [ "$kind" = sqlite ]; then
        local device="printf('d_%04d', value / $per)"
        select="${select//@device/$device}"; select="${select//@r/value}"; select="${select//@false/0}"
        sqlite3 "$db" <<SQL
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO devices (id, name, token_hash, created_ms, revoked_ms)
  SELECT printf('d_%04d', value), 'bench ' || value, 'scale-' || value, $start, NULL FROM generate_series(0, $DEVICES - 1);
INSERT INTO positions (device_id, ts, lat, lon, alt, h_acc, v_acc, speed, course, battery, charging, activity, source, received_ms)
  $select FROM generate_series(0, $size - 1);
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
    else
        local device="format('d_%s', lpad((r / $per)::text, 4, '0'))"
        select="${select//@device/$device}"; select="${select//@r/r}"; select="${select//@false/false}"
        psql_in "$db" -v ON_ERROR_STOP=1 -q <<SQL
SET synchronous_commit = off;
INSERT INTO devices (id, name, token_hash, created_ms, revoked_ms)
  SELECT format('d_%s', lpad(n::text, 4, '0')), 'bench ' || n, 'scale-' || n, $start, NULL FROM generate_series(0, $DEVICES - 1) n;
INSERT INTO positions (device_id, ts, lat, lon, alt, h_acc, v_acc, speed, course, battery, charging, activity, source, received_ms)
  $select FROM generate_series(0::bigint, $size - 1) r;
VACUUM ANALYZE positions; ANALYZE devices;
SQL
    fi
}

# psql_in DATABASE ARGS…: psql on a waymark database URL (psql does not read search_path from a URL).
psql_in() {
    local url="$1"; shift
    local schema="${url##*search_path=}"
    PGOPTIONS="-c search_path=$schema -c client_min_messages=warning" psql "${url%[?&]search_path=*}" "$@"
}

bytes_per_point() {
    local kind="$1" db="$2" count="$3"
    if [ "$kind" = sqlite ]; then
        python3 -c "import os,sys; p=sys.argv[1]; s=sum(os.path.getsize(p+x) for x in ('','-wal') if os.path.exists(p+x)); print(round(s/max(1,int(sys.argv[2])),1))" "$db" "$count"
    else
        # Rows (today's, and any not compacted yet) and chunks (finished days), each with its indexes and TOAST.
        psql_in "$db" -Atc "SELECT round(sum(pg_total_relation_size(relid))::numeric / greatest(1, $count), 1)
            FROM (SELECT relid FROM pg_partition_tree('positions') UNION ALL SELECT relid FROM pg_partition_tree('position_chunks')) t"
    fi
}

ingest_rate() {   # msg/s of single-point /pub from the device registered for it, 16 connections, 10 s
    local token="$1"
    TOKEN="$token" AUTHB64="$(printf 'bench:%s' "$token" | base64 -w0)" \
        wrk -t1 -c16 -d10s -s Scripts/wrk/single_point.lua "$URL" -- pub $(( NOW_MS / 1000 - 40 * 86400 )) "$token" \
        "Basic $(printf 'bench:%s' "$token" | base64 -w0)" 1 2>/dev/null | awk '/Requests\/sec/ {print $2}'
}

new_database() {   # KIND NAME
    if [ "$1" = sqlite ]; then echo "$TMP/$2.sqlite"; else
        local schema="scale_$(date +%s)_$RANDOM"
        psql "$PG_URL" -qc "CREATE SCHEMA $schema" >&2
        echo "$PG_URL$( [[ "$PG_URL" == *\?* ]] && echo '&' || echo '?' )search_path=$schema"
    fi
}
drop_database() {
    if [ "$1" = sqlite ]; then rm -f "$2" "$2-wal" "$2-shm"; else
        PGOPTIONS="-c client_min_messages=warning" psql "$PG_URL" -qc "DROP SCHEMA ${2##*search_path=} CASCADE" >&2
    fi
}

echo "== $(nproc) cores; $(uptime); waymark $("$BIN" --version)" >&2
for kind in $STORES; do
    if [ "$kind" = postgres ] && [ -z "$PG_URL" ]; then echo "== postgres skipped: no WAYMARK_BENCH_POSTGRES_URL" >&2; continue; fi
    for size in 0 $SIZES; do
        db="$(new_database "$kind" "s$size")"
        token="$("$BIN" device add ingest --database "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
        fill_s=0 compact_s=0
        if [ "$size" -gt 0 ]; then
            echo "== $kind: filling $size points" >&2
            t0=$(date +%s.%N); fill "$kind" "$db" "$size"; fill_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
            if [ "$kind" = postgres ]; then
                # What `waymark serve` does an hour after each day ends, here for the whole import at once.
                echo "== $kind: compacting finished days" >&2
                t0=$(date +%s.%N); "$BIN" compact --database "$db" >&2; compact_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
            fi
        fi
        bpp="$( [ "$size" -gt 0 ] && bytes_per_point "$kind" "$db" "$size" || echo null)"
        start_server "$db"
        rate="$(ingest_rate "$token")"
        queries="null"
        if [ "$size" -gt 0 ]; then
            per=$(( size / DEVICES )); start=$(( NOW_MS - per * 60000 ))
            day=$(( start + (per / 2) / 1440 * 86400000 )); gpx_from=$(( start + 60000 * (per / 4) )); gpx_to=$(( gpx_from + 60000 * 10000 ))
            [ "$per" -ge 10000 ] || { gpx_from=$start; gpx_to=$(( start + 60000 * per )); }
            queries="$(python3 Scripts/bench_scale.py "$URL" "$WAYMARK_ADMIN_TOKEN" d_0500 "$day" "$gpx_from" "$gpx_to" 30)"
        fi
        stop_server
        python3 -c 'import json,sys; print(json.dumps({"store": sys.argv[1], "points": int(sys.argv[2]), "fill_seconds": float(sys.argv[3]),
            "bytes_per_point": None if sys.argv[4] == "null" else float(sys.argv[4]), "ingest_msgs_per_s": float(sys.argv[5] or 0),
            "queries": json.loads(sys.argv[6]), "compact_seconds": float(sys.argv[7])}, sort_keys=True))' \
            "$kind" "$size" "$fill_s" "$bpp" "$rate" "$queries" "$compact_s"
        drop_database "$kind" "$db"
    done
done
