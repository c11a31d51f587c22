#!/usr/bin/env python3
"""Speed of the WGS-84 geodesic: `waymark geo benchmark` (release build) next to GeographicLib.

Usage: python3 Scripts/bench_geodesic.py [--runs 5] [--count 200000]

Builds the release binary, runs the Swift benchmark several times and reports the median of
each figure, then times the geographiclib PyPI package (pure Python, the peer available here)
on random pairs in the same run and prints the ratio for the inverse problem.
"""
import argparse
import math
import random
import statistics
import subprocess
import time

from geographiclib.geodesic import Geodesic


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=200_000)
    args = parser.parse_args()
    subprocess.run(["swift", "build", "-c", "release", "--product", "waymark"], check=True,
                   stdout=subprocess.DEVNULL)
    binary = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], check=True,
                            capture_output=True, text=True).stdout.strip() + "/waymark"
    figures = {}
    for _ in range(args.runs):
        out = subprocess.run([binary, "geo", "benchmark", "--count", str(args.count)], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            name, value = line.rsplit(None, 2)[0], float(line.rsplit(None, 2)[1])
            figures.setdefault(name, []).append(value)
    print(f"waymark (release, median of {args.runs} runs, {args.count} pairs each):")
    for name, values in figures.items():
        print(f"  {name:44s} {statistics.median(values):8.1f} ns/call")

    rng = random.Random(1)
    pairs = [(math.degrees(math.asin(rng.uniform(-1, 1))), rng.uniform(-180, 180),
              math.degrees(math.asin(rng.uniform(-1, 1))), rng.uniform(-180, 180)) for _ in range(20_000)]
    times = []
    for _ in range(3):
        start = time.perf_counter()
        for p in pairs:
            Geodesic.WGS84.Inverse(*p, Geodesic.DISTANCE | Geodesic.AZIMUTH)
        times.append((time.perf_counter() - start) / len(pairs) * 1e9)
    peer = statistics.median(times)
    ours = statistics.median(figures["geodesic inverse (random pairs)"])
    print(f"geographiclib {getattr(__import__('geographiclib'), '__version__', '?')} (Python) inverse: "
          f"{peer:8.1f} ns/call; waymark is {peer / ours:.0f}x faster")


if __name__ == "__main__":
    main()
