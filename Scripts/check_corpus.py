#!/usr/bin/env python3
"""Checks Waymark's GPX reader against gpxpy 1.6.2 and GeographicLib on the corpus.

For every Tests/WaymarkGeoTests/Fixtures/corpus/*/*.gpx file:
  * the counts (waypoints, routes, route points, tracks, segments, track points)
    printed by `BINARY gpx validate --json FILE` must equal gpxpy's;
  * if `BINARY gpx stats --json FILE` exists and prints a `length2d` field (metres),
    it must agree within 0.01% with the WGS-84 geodesic length from GeographicLib,
    summed over consecutive points of each track segment (segments are not joined;
    routes are not included). Files whose stats have no `length2d` are reported as
    "length: not checked".

Usage:
  Scripts/check_corpus.py BINARY           compare BINARY (e.g. .build/debug/waymark) with the peers
  Scripts/check_corpus.py --write-fixture  record gpxpy's counts in
                                           Tests/WaymarkGeoTests/Fixtures/gpxpy-counts.json
Exit status 0 when everything checked agrees, 1 otherwise.
"""
import glob
import json
import os
import subprocess
import sys

import gpxpy
from geographiclib.geodesic import Geodesic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "WaymarkGeoTests", "Fixtures")
CORPUS = os.path.join(FIXTURES, "corpus")
FIXTURE_FILE = os.path.join(FIXTURES, "gpxpy-counts.json")
TOLERANCE = 1e-4  # 0.01%


def corpus_files():
    return sorted(glob.glob(os.path.join(CORPUS, "*", "*.gpx")))


def gpxpy_document(path):
    with open(path, encoding="utf-8") as f:
        return gpxpy.parse(f)


def gpxpy_counts(gpx):
    return {
        "waypoints": len(gpx.waypoints),
        "routes": len(gpx.routes),
        "routePoints": sum(len(r.points) for r in gpx.routes),
        "tracks": len(gpx.tracks),
        "segments": sum(len(t.segments) for t in gpx.tracks),
        "trackPoints": sum(len(s.points) for t in gpx.tracks for s in t.segments),
    }


def geodesic_length(gpx):
    total = 0.0
    for track in gpx.tracks:
        for segment in track.segments:
            pts = segment.points
            for a, b in zip(pts, pts[1:]):
                total += Geodesic.WGS84.Inverse(a.latitude, a.longitude, b.latitude, b.longitude)["s12"]
    return total


def run_json(args):
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    try:
        return json.loads(proc.stdout), None
    except json.JSONDecodeError as e:
        return None, f"not JSON: {e}"


def write_fixture():
    counts = {}
    for path in corpus_files():
        counts[os.path.relpath(path, CORPUS)] = gpxpy_counts(gpxpy_document(path))
    with open(FIXTURE_FILE, "w", encoding="utf-8") as f:
        json.dump({"generator": f"gpxpy {gpxpy.__version__}", "files": counts}, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(counts)} entries to {os.path.relpath(FIXTURE_FILE, ROOT)}")
    return 0


def check(binary):
    failures = 0
    lengths_checked = 0
    for path in corpus_files():
        name = os.path.relpath(path, CORPUS)
        gpx = gpxpy_document(path)
        expected = gpxpy_counts(gpx)
        report, error = run_json([binary, "gpx", "validate", "--json", path])
        if report is None or not report.get("valid"):
            print(f"FAIL {name}: validate failed: {error or (report or {}).get('error')}")
            failures += 1
            continue
        ours = {k: report["counts"].get(k) for k in expected}
        if ours != expected:
            diff = ", ".join(f"{k}: ours {ours[k]} gpxpy {expected[k]}" for k in expected if ours[k] != expected[k])
            print(f"FAIL {name}: counts differ ({diff})")
            failures += 1
            continue
        line = f"ok   {name}: {expected['trackPoints']} track points, {expected['routePoints']} route points, " \
               f"{expected['waypoints']} waypoints"
        stats, _ = run_json([binary, "gpx", "stats", "--json", path])
        if isinstance(stats, dict) and "length2d" in stats:
            reference = geodesic_length(gpx)
            ours_len = float(stats["length2d"])
            rel = abs(ours_len - reference) / reference if reference > 0 else abs(ours_len)
            if rel > TOLERANCE and abs(ours_len - reference) > 1e-6:
                print(f"FAIL {name}: length2d {ours_len:.3f} m vs GeographicLib {reference:.3f} m "
                      f"({rel * 100:.4f}% > 0.01%)")
                failures += 1
                continue
            lengths_checked += 1
            line += f"; length {ours_len:.3f} m vs GeographicLib {reference:.3f} m ({rel * 100:.5f}%)"
        else:
            line += "; length: not checked (no length2d from `gpx stats --json`)"
        print(line)
    total = len(corpus_files())
    print(f"\n{total - failures}/{total} files agree with gpxpy {gpxpy.__version__}; "
          f"{lengths_checked} lengths checked against GeographicLib")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--write-fixture":
        return write_fixture()
    if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        return check(sys.argv[1])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
