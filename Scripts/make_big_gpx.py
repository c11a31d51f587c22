#!/usr/bin/env python3
"""Writes a deterministic ~100 MB GPX 1.1 file for the GPX benchmark.

One track, ten segments, 1,000,000 track points in total (by default), each with
elevation and time: a random walk at cycling speed around Ljubljana with 7-decimal
coordinates, 1-decimal elevations and one point per second. The same arguments
always give byte-identical output.

Usage: Scripts/make_big_gpx.py [OUT] [--points N]   (default OUT: /tmp/waymark-big.gpx)
"""
import argparse
import math
import random
import sys
import time as _time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="/tmp/waymark-big.gpx")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--segments", type=int, default=10)
    args = parser.parse_args()

    rng = random.Random(20240501)
    lat, lon, ele = 46.0569, 14.5058, 295.0
    heading = rng.uniform(0, 2 * math.pi)
    t = 1714550400  # 2024-05-01T08:00:00Z
    per_segment = max(1, args.points // args.segments)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<gpx version="1.1" creator="Waymark make_big_gpx.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
        f.write(" <metadata><name>Benchmark ride</name><time>2024-05-01T08:00:00Z</time></metadata>\n")
        f.write(" <trk>\n  <name>Benchmark ride</name>\n")
        written = 0
        while written < args.points:
            f.write("  <trkseg>\n")
            lines = []
            for _ in range(min(per_segment, args.points - written)):
                heading += rng.gauss(0, 0.15)
                step = rng.uniform(4.0, 9.0)  # metres per second
                lat += step * math.cos(heading) / 111_320.0
                lon += step * math.sin(heading) / (111_320.0 * math.cos(math.radians(lat)))
                ele = max(-50.0, ele + rng.gauss(0, 0.4))
                stamp = _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(t))
                lines.append(f'   <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ele:.1f}</ele><time>{stamp}</time></trkpt>\n')
                t += 1
                written += 1
            f.write("".join(lines))
            f.write("  </trkseg>\n")
            t += 600  # a ten-minute gap between segments
        f.write(" </trk>\n</gpx>\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
