#!/usr/bin/env python3
"""Times the read queries of Scripts/bench_scale.sh against a running `waymark serve`.

Usage: bench_scale.py URL ADMIN_TOKEN DEVICE_ID DAY_START_MS GPX_FROM_MS GPX_TO_MS [REPEATS=30]
Prints one JSON object: the median and p90 milliseconds of each query over REPEATS runs (after 3 warm-up
runs), and the size of each answer, over one keep-alive connection.
"""
import http.client
import json
import statistics
import sys
import time
from urllib.parse import urlparse


def main():
    url, token, device, day, gpx_from, gpx_to = sys.argv[1:7]
    repeats = int(sys.argv[7]) if len(sys.argv) > 7 else 30
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
    headers = {"Authorization": "Bearer " + token}
    day_end = int(day) + 86_400_000

    def get(path):
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"{path}: HTTP {response.status}: {body[:300]!r}")
        return body

    def day_track():
        # Every page of the device-day, following next_cursor.
        path = f"/api/devices/{device}/positions?from={day}&to={day_end}&limit=10000"
        total, cursor = 0, None
        while True:
            page = json.loads(get(path + (f"&cursor={cursor}" if cursor else "")))
            total += len(page["positions"])
            cursor = page["next_cursor"]
            if not cursor:
                return total

    queries = {
        "last_position": lambda: len(get(f"/api/devices/{device}/last")),
        "device_day_track": day_track,
        "gpx_export_10000": lambda: get(f"/api/devices/{device}/export?format=gpx&from={gpx_from}&to={gpx_to}").count(b"<trkpt"),
        "device_list": lambda: len(json.loads(get("/api/devices"))["devices"]),
    }
    result = {}
    for name, query in queries.items():
        for _ in range(3):
            size = query()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            size = query()
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        result[name] = {"median_ms": round(statistics.median(times), 3), "p90_ms": round(times[int(len(times) * 0.9) - 1], 3),
                        "size": size}
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
