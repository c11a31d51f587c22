#!/usr/bin/env bash
# Runs schemathesis (PyPI) against a live `waymark serve` with the server's own /openapi.json: for every
# documented operation a bounded number of generated requests, checking that no answer is a 5xx and that
# every answer's status, content type, headers and body match the document.
#
# Usage: Scripts/check_openapi.sh [BINARY=.build/debug/waymark] [EXAMPLES=25]
# Two passes: with the admin token (every operation but the endless /api/stream), then with a device token
# (the ingest operations, which refuse the admin token). Needs `schemathesis` (pip install schemathesis).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-.build/debug/waymark}"
EXAMPLES="${2:-25}"
TMP="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
export WAYMARK_ADMIN_TOKEN="wma_openapi_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
DB="$TMP/openapi.sqlite"
DEVICE_TOKEN="$("$BIN" device add schemathesis --database "$DB" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
"$BIN" serve --port 0 --database "$DB" > "$TMP/server.log" 2>&1 &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do
    URL="$(grep -o 'http://127.0.0.1:[0-9]*' "$TMP/server.log" | head -1 || true)"
    [ -n "$URL" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/server.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$URL" ] || { echo "server did not start" >&2; cat "$TMP/server.log" >&2; exit 1; }
CHECKS="not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance"
COMMON=(--checks "$CHECKS" --max-examples "$EXAMPLES" --request-timeout 10 --seed 1 --no-color)
echo "== schemathesis, admin token ($URL)"
schemathesis run "$URL/openapi.json" "${COMMON[@]}" -H "Authorization: Bearer $WAYMARK_ADMIN_TOKEN" \
    --exclude-path /api/stream
echo "== schemathesis, device token, ingest operations"
schemathesis run "$URL/openapi.json" "${COMMON[@]}" -H "Authorization: Bearer $DEVICE_TOKEN" --include-tag ingest
# The server must still be up: a crash would have shown as connection errors above, but check explicitly.
kill -0 "$SERVER_PID"
echo "OpenAPI check passed"
