#!/usr/bin/env python3
"""Compare `waymark geo inverse/direct` with GeographicLib on random WGS-84 geodesics.

Usage:
  python3 Scripts/check_geodesic.py [WAYMARK_BINARY] [--count N] [--seed S]
  python3 Scripts/check_geodesic.py --write-fixture Tests/WaymarkGeoTests/Fixtures/geodesic-vectors.csv

The binary defaults to .build/debug/waymark (built with `swift build` when missing).
Pairs are drawn with a fixed seed: uniform on the sphere, nearly antipodal, short,
near the poles, and special lines (equatorial, meridional, polar, coincident).
Exits 1 when any inverse distance or direct end point is off by more than 1 mm.
Needs the `geographiclib` PyPI package (2.x).
"""
import argparse
import math
import os
import random
import statistics
import subprocess
import sys

from geographiclib.geodesic import Geodesic

WGS84 = Geodesic.WGS84
TOLERANCE_M = 1e-3


def uniform_point(rng):
    return math.degrees(math.asin(rng.uniform(-1, 1))), rng.uniform(-180, 180)


def nearly_antipodal(rng):
    lat1, lon1 = uniform_point(rng)
    scale = 10 ** rng.uniform(-6, 0)          # up to 1 degree from the antipode
    lat2 = max(-90.0, min(90.0, -lat1 + rng.uniform(-1, 1) * scale))
    lon2 = lon1 + 180 + rng.uniform(-1, 1) * scale
    return lat1, lon1, lat2, wrap(lon2)


def short(rng):
    lat1, lon1 = uniform_point(rng)
    lat1 = max(-89.9, min(89.9, lat1))
    d = 10 ** rng.uniform(-3, 4.5)             # 1 mm to ~30 km
    g = WGS84.Direct(lat1, lon1, rng.uniform(-180, 180), d)
    return lat1, lon1, g["lat2"], wrap(g["lon2"])


def near_pole(rng):
    lat1 = rng.choice([-1, 1]) * (90 - 10 ** rng.uniform(-6, 0.5))
    lat2, lon2 = uniform_point(rng)
    if rng.random() < 0.5:
        lat2 = rng.choice([-1, 1]) * (90 - 10 ** rng.uniform(-6, 0.5))
    return lat1, rng.uniform(-180, 180), lat2, lon2


def special(rng):
    kind = rng.randrange(6)
    lat1, lon1 = uniform_point(rng)
    lat2, lon2 = uniform_point(rng)
    if kind == 0:                                  # equatorial, including near-antipodal
        return 0.0, lon1, 0.0, wrap(lon1 + rng.choice([rng.uniform(-180, 180), 180 - rng.uniform(0, 1)]))
    if kind == 1:                                  # same meridian
        return lat1, lon1, lat2, lon1
    if kind == 2:                                  # opposite meridians (through a pole)
        return lat1, lon1, lat2, wrap(lon1 + 180)
    if kind == 3:                                  # a pole
        return rng.choice([-90.0, 90.0]), lon1, lat2, lon2
    if kind == 4:                                  # coincident
        return lat1, lon1, lat1, lon1
    return round(lat1), round(lon1), round(lat2), round(lon2)   # whole degrees


def wrap(lon):
    lon = math.fmod(lon + 180, 360)
    if lon < 0:
        lon += 360
    lon -= 180
    return -180.0 if lon >= 180 else lon


def make_pairs(count, seed):
    rng = random.Random(seed)
    kinds = [("uniform", uniform_point, 0.55), ("antipodal", nearly_antipodal, 0.2),
             ("short", short, 0.1), ("pole", near_pole, 0.05), ("special", special, 0.1)]
    pairs = []
    for name, make, share in kinds:
        for _ in range(round(count * share)):
            if name == "uniform":
                p = make(rng) + make(rng)
            else:
                p = make(rng)
            pairs.append((name,) + tuple(float(v) for v in p))
    return pairs[:count]


def azimuth_difference(a, b):
    d = math.fmod(a - b, 360)
    if d > 180:
        d -= 360
    if d < -180:
        d += 360
    return abs(d)


def run_batch(binary, mode, lines):
    proc = subprocess.run([binary, "geo", mode, "--batch"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"waymark geo {mode} --batch failed ({proc.returncode}): {proc.stderr.strip()}")
    out = [list(map(float, line.split())) for line in proc.stdout.splitlines() if line.strip()]
    if len(out) != len(lines):
        sys.exit(f"waymark geo {mode} --batch printed {len(out)} lines for {len(lines)} inputs")
    return out


def summary(name, errors, unit):
    if not errors:
        return
    print(f"{name:38s} max {max(errors):.3e} {unit}   median {statistics.median(errors):.3e} {unit}"
          f"   (n={len(errors)})")


def check(binary, count, seed):
    pairs = make_pairs(count, seed)
    inverse_in = [f"{p[1]!r} {p[2]!r} {p[3]!r} {p[4]!r}" for p in pairs]
    inverse_out = run_batch(binary, "inverse", inverse_in)
    ref = [WGS84.Inverse(p[1], p[2], p[3], p[4]) for p in pairs]

    dist_err, az_err, worst = [], [], (0.0, None)
    for p, got, r in zip(pairs, inverse_out, ref):
        e = abs(got[0] - r["s12"])
        dist_err.append(e)
        if e > worst[0]:
            worst = (e, p)
        # Azimuths are undefined at a pole and ill-conditioned for lines of a few millimetres
        # (a 1e-10 m rounding of a coordinate turns them by 1e-5 degrees): compare the rest.
        if abs(p[1]) < 90 and abs(p[3]) < 90 and r["s12"] > 1:
            az_err.append(max(azimuth_difference(got[1], r["azi1"]), azimuth_difference(got[2], r["azi2"])))

    direct_in = [f"{p[1]!r} {p[2]!r} {r['azi1']!r} {r['s12']!r}" for p, r in zip(pairs, ref)]
    direct_out = run_batch(binary, "direct", direct_in)
    direct_err = []
    for p, got, r in zip(pairs, direct_out, ref):
        want = WGS84.Direct(p[1], p[2], r["azi1"], r["s12"])
        direct_err.append(WGS84.Inverse(got[0], got[1], want["lat2"], want["lon2"])["s12"])

    print(f"geodesic check: {len(pairs)} pairs, seed {seed}, waymark vs geographiclib")
    summary("inverse distance error", dist_err, "m")
    for kind in ("uniform", "antipodal", "short", "pole", "special"):
        summary(f"  {kind}", [e for e, p in zip(dist_err, pairs) if p[0] == kind], "m")
    summary("inverse azimuth error (>1 m, off poles)", az_err, "deg")
    summary("direct end-point error", direct_err, "m")
    failures = sum(e > TOLERANCE_M for e in dist_err) + sum(e > TOLERANCE_M for e in direct_err)
    if failures:
        print(f"FAIL: {failures} results off by more than {TOLERANCE_M * 1000:g} mm; worst inverse pair {worst[1]}")
        return 1
    print(f"OK: every distance and end point within {TOLERANCE_M * 1000:g} mm")
    return 0


def write_fixture(path, seed):
    """Writes ~500 reference vectors, about 100 of them nearly antipodal."""
    rng = random.Random(seed)
    rows = []
    for name, make, n in [("uniform", None, 250), ("antipodal", nearly_antipodal, 100), ("short", short, 60),
                          ("pole", near_pole, 40), ("special", special, 50)]:
        for _ in range(n):
            p = uniform_point(rng) + uniform_point(rng) if make is None else make(rng)
            rows.append((name,) + tuple(float(v) for v in p))
    with open(path, "w", encoding="utf-8") as f:
        f.write("# WGS-84 geodesics computed by geographiclib (Python) "
                f"{getattr(sys.modules['geographiclib'], '__version__', '?')}; "
                "generated by Scripts/check_geodesic.py --write-fixture\n")
        f.write("kind,lat1,lon1,lat2,lon2,s12,azi1,azi2\n")
        for name, lat1, lon1, lat2, lon2 in rows:
            r = WGS84.Inverse(lat1, lon1, lat2, lon2)
            f.write(f"{name},{lat1!r},{lon1!r},{lat2!r},{lon2!r},{r['s12']!r},{r['azi1']!r},{r['azi2']!r}\n")
    print(f"wrote {len(rows)} vectors to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", nargs="?", default=".build/debug/waymark")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20130101)
    parser.add_argument("--write-fixture", metavar="CSV")
    args = parser.parse_args()
    import geographiclib  # noqa: F401  (for the version in the fixture header)
    if args.write_fixture:
        write_fixture(args.write_fixture, args.seed)
        return 0
    if not os.path.exists(args.binary):
        print(f"{args.binary} not found; running swift build", file=sys.stderr)
        subprocess.run(["swift", "build", "--product", "waymark"], check=True)
    return check(args.binary, args.count, args.seed)


if __name__ == "__main__":
    sys.exit(main())
