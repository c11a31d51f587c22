#!/usr/bin/env bash
# Single-point ingest over loopback HTTP: `waymark serve` (release build) next to the OwnTracks Recorder
# (`ot-recorder`, C), one position per request, driven by wrk (one thread, N keep-alive connections).
# How to build the recorder: Docs/PERFORMANCE.md. Needs wrk, sqlite3 and python3; root for the tmpfs mount.
#
# Usage: [OT_RECORDER=/path/to/ot-recorder] Scripts/bench_single_point.sh [RUNS=3] [DURATION=10]
#   RUNS, DURATION      rounds, and seconds measured per run (after a WARMUP=2 s wrk run); also from the environment
#   STORAGE="tmpfs disk"  where the servers keep their data: a fresh tmpfs (`mount -t tmpfs`; /dev/shm when
#                       mounting is not allowed), and/or a directory under DISK_DIR (default /var/tmp), and/or
#                       postgres: waymark on PostgreSQL at BENCH_POSTGRES_URL (a fresh schema per run, dropped after
#                       it; the recorder, which has no database, on a directory under DISK_DIR)
#   CONNS="16 64"       wrk connections
#   KINDS="pub osmand traccar"  waymark's request kinds: OwnTracks POST /pub, OsmAnd GET /?id=…, Traccar
#                       Client JSON POST /; the recorder runs only pub, with the same request bytes
#   MODES="max half"    max: as fast as answered; half: a second run paced (wrk delay()) at half of the max
#                       run's rate, for its p99
#   DEVICES=1           devices sending (waymark only): each request comes from the next device in turn, so a group
#                       commit holds several devices' points
#   FENCES=0            circle fences (100 m) stored before each waymark run, on a grid around the points' walk, so
#                       every point is evaluated against fences and its device's fence state is kept
#   POINTS=old          old: points 1 s apart from 30 (warm-up) and 20 (measured) days back; today: points 1 ms apart
#                       from two hours and one hour back, all of the current UTC day (what phones send; the run
#                       must start at least 2.5 h into the UTC day)
#   WAYMARK_BIN         default .build/release/waymark (this script does not build it)
#   WAYMARK_SERVE_ARGS  extra `waymark serve` arguments (split on spaces)
#   OT_RECORDER unset: the recorder is skipped.
#
# Every run has a fresh server and store: `sync`, a 2 s pause, the warm-up, then the measured run. Order per
# round, storage and N: recorder, then waymark (A B A B over rounds). Points are 1 s apart, unique and
# increasing (warm-up from 30 days back, measured from 20 days back: inside waymark's accepted window).
# Per run: msg/s (2xx / measured seconds), p50/p99 ms (closed loop: coordinated omission included), the server's
# CPU (utime+stime of its pid) per message, machine busy/iowait/system % (/proc/stat), wrk's CPU, and the cores
# busy outside both (other_cores: a build or kernel writeback running alongside; noted when > 0.3).
# After the run the stored points are counted (SQLite or PostgreSQL `positions`; lines of the recorder's rec
# files). On postgres the server's CPU is waymark's alone: PostgreSQL's backends show in other_cores.
# The script stops when a run had a non-2xx answer, a socket error, a point waymark rejected or did not store,
# or fewer stored points than acknowledged. Prints each run as a JSON line, then medians (markdown).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-${RUNS:-3}}"
DURATION="${2:-${DURATION:-10}}"
STORAGE="${STORAGE:-tmpfs disk}"
CONNS="${CONNS:-16 64}"
KINDS="${KINDS:-pub osmand traccar}"
MODES="${MODES:-max half}"
WARMUP="${WARMUP:-2}"
DEVICES="${DEVICES:-1}"
FENCES="${FENCES:-0}"
POINTS="${POINTS:-old}"
case "$POINTS" in
    old) STEP_MS=0 ;;
    today) STEP_MS=1
        if [ $(( $(date +%s) % 86400 )) -lt 9000 ]; then echo "POINTS=today needs 2.5 h of the UTC day behind it" >&2; exit 1; fi ;;
    *) echo "POINTS must be old or today" >&2; exit 1 ;;
esac
PAUSE=2
BIN="${WAYMARK_BIN:-$PWD/.build/release/waymark}"
LUA="$PWD/Scripts/wrk/single_point.lua"
REC="${OT_RECORDER:-}"
read -r -a SERVE_ARGS <<< "${WAYMARK_SERVE_ARGS:-}"
# wrk is one flood from one address and one device: the rate limits are turned off when the binary has them.
if "$BIN" serve --help 2>/dev/null | grep -q -- --rate-limit-per-device; then
    SERVE_ARGS+=(--rate-limit-per-address off --rate-limit-per-device off)
fi

[ -x "$BIN" ] || { echo "no waymark binary at $BIN (swift build -c release --product waymark)" >&2; exit 1; }
if [[ " $STORAGE " == *" postgres "* ]]; then
    [ -n "${BENCH_POSTGRES_URL:-}" ] || { echo "STORAGE postgres needs BENCH_POSTGRES_URL=postgres://user:password@host:port/database" >&2; exit 1; }
    command -v psql > /dev/null || { echo "needs psql (Debian: apt-get install postgresql-client)" >&2; exit 1; }
fi
for tool in wrk sqlite3 python3 findmnt; do
    command -v "$tool" > /dev/null || { echo "needs $tool (Debian: apt-get install wrk sqlite3 python3 util-linux)" >&2; exit 1; }
done
if [ -z "$REC" ]; then echo "== OT_RECORDER is not set: the recorder is skipped" >&2
elif [ ! -x "$REC" ]; then echo "OT_RECORDER=$REC is not executable" >&2; exit 1; fi

TMP="$(mktemp -d)"
RESULTS="$TMP/results.jsonl"
SERVER_PID="" TMPFS_MOUNT=""
declare -A ROOT=()
export WAYMARK_ADMIN_TOKEN="wma_bench_$(date +%s)_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"   # >= 24 bytes
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$TMPFS_MOUNT" ]; then umount "$TMPFS_MOUNT" || true; fi
    for root in "${ROOT[@]}"; do rm -rf "$root"; done
    rm -rf "$TMP"
}
trap cleanup EXIT
HZ="$(getconf CLK_TCK)"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# All CPU time, idle + iowait, iowait, and system (+irq, softirq) in ticks since boot (first line of /proc/stat).
machine_ticks() { awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6, $6, $4+$7+$8; exit}' /proc/stat; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for storage in $STORAGE; do
    case "$storage" in
        tmpfs)
            ROOT[tmpfs]="$(mktemp -d)"
            if mount -t tmpfs -o size=4g waymark-bench "${ROOT[tmpfs]}" 2> /dev/null; then TMPFS_MOUNT="${ROOT[tmpfs]}"
            else
                rmdir "${ROOT[tmpfs]}"; ROOT[tmpfs]="$(mktemp -d /dev/shm/waymark-bench.XXXXXX)"
                echo "== tmpfs: mount failed (not root?); using ${ROOT[tmpfs]}" >&2
            fi ;;
        postgres)
            ROOT[postgres]="$(mktemp -d "${DISK_DIR:-/var/tmp}/waymark-bench.XXXXXX")"
            echo "== postgres: $(psql "$BENCH_POSTGRES_URL" -qAtc 'select version()' | cut -d' ' -f1-2), synchronous_commit" \
                "set by waymark's --durability; fsync=$(psql "$BENCH_POSTGRES_URL" -qAtc 'show fsync')" >&2 ;;
        disk)
            ROOT[disk]="$(mktemp -d "${DISK_DIR:-/var/tmp}/waymark-bench.XXXXXX")"
            read -r target fstype options <<< "$(findmnt -n -o TARGET,FSTYPE,OPTIONS -T "${ROOT[disk]}")"
            DISK_FS="${ROOT[disk]} on $target ($fstype, $options)"
            if [[ ",$options," == *,discard,* ]]; then
                DISK_FS="$DISK_FS; mounted with discard: each freed block is trimmed synchronously, which slows the recorder's file replaces"
            fi
            echo "== disk: $DISK_FS" >&2 ;;
        *) echo "STORAGE: unknown kind '$storage' (tmpfs, disk, postgres)" >&2; exit 1 ;;
    esac
done

# A token of waymark's format for the recorder's requests (it ignores Authorization): the same bytes for both.
REC_TOKEN="$("$BIN" device add bench --database "$TMP/token.sqlite" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

# wait_listening PORT LOG: until something accepts on 127.0.0.1:PORT, or the server has exited.
wait_listening() {
    for _ in $(seq 1 300); do
        if (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; then return 0; fi
        if ! kill -0 "$SERVER_PID" 2> /dev/null; then cat "$2" >&2; exit 1; fi
        sleep 0.1
    done
    echo "server did not start" >&2; cat "$2" >&2; exit 1
}

# database STORAGE DIR: waymark's --database for a run in DIR (on postgres: a fresh schema, named in DIR/schema).
database() {
    if [ "$1" != postgres ]; then echo "$2/waymark.sqlite"; return; fi
    local schema
    [ -f "$2/schema" ] || { schema="bench_$(date +%s%N)"; psql "$BENCH_POSTGRES_URL" -qc "create schema $schema" >&2; echo "$schema" > "$2/schema"; }
    echo "$BENCH_POSTGRES_URL?search_path=$(cat "$2/schema")"
}

# start_server SERVER DIR STORAGE: a fresh recorder or waymark with its store in DIR; sets SERVER_PID, SERVER_URL, TOKEN.
start_server() {
    local log="$2/server.log" port
    if [ "$1" = recorder ]; then
        TOKEN="$REC_TOKEN"
        "$REC" --initialize -S "$2/store" > "$log" 2>&1
        port="$(free_port)"
        "$REC" -S "$2/store" --http-host 127.0.0.1 --http-port "$port" --norevgeo --quiet >> "$log" 2>&1 &
        SERVER_PID=$!
        SERVER_URL="http://127.0.0.1:$port"
        wait_listening "$port" "$log"
        return 0
    fi
    local db
    db="$(database "$3" "$2")"
    TOKEN=""
    for d in $(seq 1 "$DEVICES"); do
        TOKEN="$TOKEN${TOKEN:+,}$("$BIN" device add "bench$d" --database "$db" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"
    done
    : > "$log"
    "$BIN" serve --port 0 --database "$db" "${SERVE_ARGS[@]}" > "$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        SERVER_URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | head -1 || true)"
        if [ -n "$SERVER_URL" ]; then
            if [ "$FENCES" -gt 0 ]; then
                python3 - "$SERVER_URL" "$FENCES" <<'PY'
import json, math, sys, urllib.request, os
url, count = sys.argv[1], int(sys.argv[2])
side = math.ceil(math.sqrt(count))
features = [{"type": "Feature", "id": f"bench_{k}", "properties": {"name": f"f{k}", "radiusMeters": 100},
             "geometry": {"type": "Point", "coordinates": [14.5 + (k % side) * 0.01 / side, 46.05 + (k // side) * 0.01 / side]}}
            for k in range(count)]
request = urllib.request.Request(url + "/api/fences", json.dumps({"type": "FeatureCollection", "features": features}).encode(),
                                 {"Authorization": "Bearer " + os.environ["WAYMARK_ADMIN_TOKEN"], "Content-Type": "application/json"})
assert urllib.request.urlopen(request).status in (200, 201)
PY
            fi
            return 0
        fi
        if ! kill -0 "$SERVER_PID" 2> /dev/null; then cat "$log" >&2; exit 1; fi
        sleep 0.1
    done
    echo "waymark did not start" >&2; cat "$log" >&2; exit 1
}

stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2> /dev/null || true; SERVER_PID=""; }

# stored SERVER DIR: points the stopped server stored (a PostgreSQL run's schema is dropped after the count).
stored() {
    if [ "$1" = recorder ]; then { find "$2/store/rec" -name '*.rec' -exec cat {} + 2> /dev/null || true; } | wc -l
    elif [ -f "$2/schema" ]; then
        psql "$BENCH_POSTGRES_URL" -qAtc "select count(*) from $(cat "$2/schema").positions"
        psql "$BENCH_POSTGRES_URL" -qc "drop schema $(cat "$2/schema") cascade" > /dev/null 2>&1
    else sqlite3 "$2/waymark.sqlite" 'SELECT count(*) FROM positions'; fi
}

# load SERVER KIND N SECONDS BASE RATE: one wrk run against SERVER_URL; prints its RESULT JSON.
load() {
    local auth="" out="$TMP/wrk.out" t
    for t in ${TOKEN//,/ }; do auth="$auth${auth:+,}Basic $(printf 'bench:%s' "$t" | base64 -w0)"; done
    if ! BENCH_STEP_MS="$STEP_MS" BENCH_RATE="$6" BENCH_CHECK="$([ "$1" = waymark ] && echo 1 || echo 0)" wrk -t1 -c"$3" -d"$4"s --timeout 10s \
        -s "$LUA" "$SERVER_URL" -- "$2" "$5" "$TOKEN" "$auth" 1 > "$out" 2>&1; then
        cat "$out" >&2; return 1
    fi
    sed -n 's/^RESULT //p' "$out"
}

# run ROUND STORAGE N SERVER KIND MODE RATE: one run on a fresh server; appends and prints its JSON line.
run() {
    local dir warm measured ticks0 ticks1 machine0 machine1 now
    dir="$(mktemp -d "${ROOT[$2]}/run.XXXXXX")"
    sync; sleep "$PAUSE"
    start_server "$4" "$dir" "$2"
    now="$(date +%s)"
    local warm_base=$((now - 30 * 86400)) base=$((now - 20 * 86400))
    if [ "$POINTS" = today ]; then warm_base=$((now - 7200)); base=$((now - 3600)); fi
    warm="$(load "$4" "$5" "$3" "$WARMUP" "$warm_base" "$7")"
    ticks0="$(cpu_ticks "$SERVER_PID")"; machine0="$(machine_ticks)"
    measured="$(load "$4" "$5" "$3" "$DURATION" "$base" "$7")"
    ticks1="$(cpu_ticks "$SERVER_PID")"; machine1="$(machine_ticks)"
    stop_server
    python3 - "$@" "$warm" "$measured" $((ticks1 - ticks0)) "$HZ" "$machine0" "$machine1" "$(stored "$4" "$dir")" \
        "$(awk '{print $1}' /proc/loadavg)" "$(nproc)" <<'PY' | tee -a "$RESULTS"
import json, sys
rnd, storage, n, server, kind, mode, rate, warm, meas, ticks, hz, m0, m1, stored, load1, cores = sys.argv[1:]
w, m = json.loads(warm), json.loads(meas)
(t0, i0, io0, s0), (t1, i1, io1, s1) = map(int, m0.split()), map(int, m1.split())
ok = m["requests"] - m["non2xx"]
acked = ok + w["requests"] - w["non2xx"]
cpu = int(ticks) / int(hz)
row = dict(round=int(rnd), storage=storage, conns=int(n), server=server, kind=kind, mode=mode,
           target_rate=float(rate), msgs_per_s=round(ok / m["seconds"], 1), p50_ms=m["p50_ms"], p99_ms=m["p99_ms"],
           max_ms=m["max_ms"], server_cpu_ms_per_msg=round(1000 * cpu / max(ok, 1), 3),
           server_cores=round(cpu / m["seconds"], 2), wrk_cores=round(m["wrk_cpu_s"] / m["seconds"], 2),
           busy_pct=round(100 * (1 - (i1 - i0) / (t1 - t0)), 1), iowait_pct=round(100 * (io1 - io0) / (t1 - t0), 1),
           system_pct=round(100 * (s1 - s0) / (t1 - t0), 1),
           seconds=m["seconds"], requests=m["requests"], acknowledged=acked, stored=int(stored), load1=float(load1),
           non2xx=w["non2xx"] + m["non2xx"], rejected=w["rejected"] + m["rejected"],
           socket_errors=w["socket_errors"] + m["socket_errors"], first_bad=m["first_bad"] or w["first_bad"])
# CPU used neither by the server nor by wrk (other processes, kernel threads such as writeback and discard).
row["other_cores"] = round(row["busy_pct"] * int(cores) / 100 - row["server_cores"] - row["wrk_cores"], 2)
print(json.dumps(row), flush=True)
if row["other_cores"] > 0.3 and storage != "postgres":
    print(f"== note: {row['other_cores']} cores busy outside the server and wrk during this run", file=sys.stderr)
problems = [f"{k}={row[k]}" for k in ("non2xx", "rejected", "socket_errors") if row[k]]
if row["stored"] < acked: problems.append(f"stored {row['stored']} < acknowledged {acked}")
if problems:
    sys.exit(f"FAILED {server} {kind} {storage} N={n}: {', '.join(problems)}; first bad answer: {row['first_bad']!r}")
PY
    rm -rf "$dir"
}

# run_pair ROUND STORAGE N SERVER KIND: the max run, then (MODES has half) the run at half its rate.
run_pair() {
    run "$@" max 0
    if [[ " $MODES " == *" half "* ]]; then
        run "$@" half "$(tail -1 "$RESULTS" | python3 -c 'import json, sys; print(json.load(sys.stdin)["msgs_per_s"] / 2)')"
    fi
}

echo "== $(nproc) cores; uptime: $(uptime); waymark $("$BIN" --version 2>/dev/null || echo '?') ${SERVE_ARGS[*]}; DEVICES=$DEVICES FENCES=$FENCES POINTS=$POINTS" >&2
for round in $(seq 1 "$RUNS"); do
    for storage in $STORAGE; do
        for n in $CONNS; do
            echo "== round $round, $storage, N=$n" >&2
            if [ -n "$REC" ]; then run_pair "$round" "$storage" "$n" recorder pub; fi
            for kind in $KINDS; do run_pair "$round" "$storage" "$n" waymark "$kind"; done
        done
    done
done
echo "== uptime after: $(uptime)" >&2

python3 - "$RESULTS" "${DISK_FS:-}" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def med(key, **where):
    v = [r[key] for r in rows if all(r[k] == x for k, x in where.items())]
    return statistics.median(v) if v else float("nan")
print(f"\nmedians of {max(r['round'] for r in rows)} run(s), {rows[0]['seconds']:.0f} s measured each; one point per request")
if sys.argv[2]: print(f"disk: {sys.argv[2]}")
print("\n| storage | N | server | kind | msg/s (runs) | p50 ms | p99 ms | CPU ms/msg | server cores | wrk cores "
      "| busy % | iowait % | other cores | p99 ms at half rate (msg/s) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
order = ["recorder pub", "waymark pub", "waymark osmand", "waymark traccar"]
cells = sorted({(r["storage"], r["conns"], r["server"], r["kind"]) for r in rows},
               key=lambda c: (["tmpfs", "disk", "postgres"].index(c[0]), c[1], order.index(f"{c[2]} {c[3]}")))
for storage, n, server, kind in cells:
    at = dict(storage=storage, conns=n, server=server, kind=kind)
    runs = ", ".join(f"{r['msgs_per_s']:.0f}" for r in rows if r["mode"] == "max" and all(r[k] == x for k, x in at.items()))
    half = f"{med('p99_ms', mode='half', **at):.1f} ({med('msgs_per_s', mode='half', **at):.0f})" if any(r["mode"] == "half" for r in rows) else "–"
    print(f"| {storage} | {n} | {server} | {kind} | **{med('msgs_per_s', mode='max', **at):.0f}** ({runs}) "
          f"| {med('p50_ms', mode='max', **at):.1f} | {med('p99_ms', mode='max', **at):.1f} "
          f"| {med('server_cpu_ms_per_msg', mode='max', **at):.2f} | {med('server_cores', mode='max', **at):.2f} "
          f"| {med('wrk_cores', mode='max', **at):.2f} | {med('busy_pct', mode='max', **at):.0f} "
          f"| {med('iowait_pct', mode='max', **at):.1f} | {med('other_cores', mode='max', **at):.2f} | {half} |")
print()
for storage, n in sorted({(c[0], c[1]) for c in cells}, key=lambda c: (["tmpfs", "disk", "postgres"].index(c[0]), c[1])):
    w = dict(storage=storage, conns=n, kind="pub", mode="max")
    if any(r["server"] == "recorder" for r in rows) and any(r["server"] == "waymark" and r["kind"] == "pub" for r in rows):
        print(f"waymark/recorder /pub, {storage}, N={n}: msg/s {med('msgs_per_s', server='waymark', **w) / med('msgs_per_s', server='recorder', **w):.2f}, "
              f"CPU ms/msg {med('server_cpu_ms_per_msg', server='waymark', **w) / med('server_cpu_ms_per_msg', server='recorder', **w):.2f}")
for n in sorted({c[1] for c in cells}):
    for kind in order:
        server, kind = kind.split()
        pg = med("msgs_per_s", storage="postgres", conns=n, server=server, kind=kind, mode="max")
        sq = med("msgs_per_s", storage="disk", conns=n, server=server, kind=kind, mode="max")
        if pg == pg and sq == sq: print(f"postgres/disk (SQLite), {server} {kind}, N={n}: msg/s {pg / sq:.2f}")
print("stored - acknowledged (in flight when wrk stopped): " + ", ".join(str(r["stored"] - r["acknowledged"]) for r in rows))
PY
