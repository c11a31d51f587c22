#!/usr/bin/env python3
"""Samples what PostgreSQL's backends are doing, for finding where a request's time goes under load.

Every INTERVAL seconds for SECONDS, one long-lived psql session reads pg_stat_activity for the backends of
the URL's database (other than itself), and the script counts each (state, wait event) pair: `active/CPU`
(running or waiting for a core), `active/LWLock:WALWrite` (waiting for another backend's WAL flush),
`active/IO:WALSync` (its own fsync), `active/Lock:...` (row or advisory locks), `idle in transaction/
Client:ClientRead` (waiting for the server's next statement), `idle/Client:ClientRead` (a pooled
connection not in use). Prints the shares, most frequent first.

    python3 Scripts/pg_waits.py postgres://user:pw@127.0.0.1/db 30 [INTERVAL=0.01]
"""
import collections, subprocess, sys, time


def main():
    url, seconds = sys.argv[1], float(sys.argv[2])
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
    psql = subprocess.Popen(["psql", url, "-qAt", "-F", "|", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    query = ("SELECT coalesce(state, '-') || '/' || coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity "
             "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' "
             "UNION ALL SELECT '--end--';\n")
    counts, samples = collections.Counter(), 0
    end = time.time() + seconds
    while time.time() < end:
        psql.stdin.write(query)
        psql.stdin.flush()
        for line in psql.stdout:
            line = line.strip()
            if line == "--end--": break
            counts[line] += 1
        samples += 1
        time.sleep(interval)
    psql.stdin.close(); psql.wait()
    total = sum(counts.values()) or 1
    print(f"{samples} samples, {total / max(samples, 1):.1f} backends each on average")
    for key, n in counts.most_common():
        print(f"{100 * n / total:6.2f}%  {n / max(samples, 1):6.2f} backends  {key}")


if __name__ == "__main__":
    main()
