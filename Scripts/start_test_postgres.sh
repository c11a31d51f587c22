#!/usr/bin/env bash
# Installs (if needed) and starts a local PostgreSQL 15 cluster for the WaymarkServer
# tests, creates the role and database `waymark_test` idempotently, and prints the URL
# to export as WAYMARK_TEST_POSTGRES_URL. Safe to run repeatedly. Debian/Ubuntu only;
# must run as root (CI containers) or with sudo rights.
#
#   export WAYMARK_TEST_POSTGRES_URL="$(Scripts/start_test_postgres.sh)"
#   swift test --filter WaymarkServerTests
set -euo pipefail

ROLE="${WAYMARK_PG_ROLE:-waymark_test}"
PASSWORD="${WAYMARK_PG_PASSWORD:-waymark_test}"
DB="${WAYMARK_PG_DATABASE:-waymark_test}"
PORT="${WAYMARK_PG_PORT:-5432}"

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
    echo "installing postgresql-15" >&2
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql-15 >&2
    # PostGIS is only needed by the fence benchmark; don't fail the tests without it.
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql-15-postgis-3 >&2 || \
        echo "warning: postgresql-15-postgis-3 not installed (only the fence benchmark needs it)" >&2
fi

if ! $SUDO pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "15 main"; then
    $SUDO pg_createcluster 15 main --port "$PORT" >&2
fi
if ! $SUDO pg_lsclusters -h | awk '$1=="15" && $2=="main" {print $4}' | grep -qx online; then
    $SUDO pg_ctlcluster 15 main start >&2
fi

# Waits until the cluster accepts connections (at most ~30 s).
wait_ready() {
    for _ in $(seq 1 60); do
        if as_postgres psql -p "$PORT" -qAtc "select 1" >/dev/null 2>&1; then return; fi
        sleep 0.5
    done
}
wait_ready

psql_admin() { as_postgres psql -p "$PORT" -v ON_ERROR_STOP=1 -qAt "$@"; }

# The store tests run in parallel, each store with a pool of up to 20 connections: the default 100 runs
# out ("too many clients"). 300 was not enough either once the suite grew: with this session's new PostgreSQL tests
# the server's log showed hundreds of refused connections in one run, and the stores' pools
# retried with backoff until tests ran past their time limits. So the cluster gets 1000 (set once;
# the restart happens only then); idle connections cost little memory.
if [ "$(psql_admin -c "show max_connections")" -lt 1000 ]; then
    psql_admin -c "alter system set max_connections = 1000" >&2
    $SUDO pg_ctlcluster 15 main restart >&2
    wait_ready
fi

if [ "$(psql_admin -c "select 1 from pg_roles where rolname = '$ROLE'")" != 1 ]; then
    psql_admin -c "create role \"$ROLE\" login password '$PASSWORD'" >&2
fi
if [ "$(psql_admin -c "select 1 from pg_database where datname = '$DB'")" != 1 ]; then
    psql_admin -c "create database \"$DB\" owner \"$ROLE\"" >&2
fi

echo "postgres://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"
