#!/usr/bin/env python3
"""Re-runs the security probe's reproductions (shared/research/security-probe.md) against a `waymark`
binary and prints, per finding, the status, reply size, time and the server's memory; then, with
--soak SECONDS, runs a mixed abusive load (the first probe's abusers and the second probe's,
shared/research/security-probe-2.md) while a well-behaved client uploads one point every 100 ms from
another loopback address (127.0.0.2, so the per-address connection share does not count it with the
abusers), and reports that client's latency and whether every acknowledged point was stored.
--database URL runs the soak's server on that database (a postgres:// URL) instead of a fresh SQLite file.

    python3 Scripts/probe_hardening.py .build/release/waymark            # reproductions
    python3 Scripts/probe_hardening.py .build/release/waymark --soak 60  # and the soak

Everything listens on 127.0.0.1; databases live in a temporary directory that is removed afterwards.
"""
import argparse, http.client, json, os, socket, statistics, subprocess, sys, tempfile, threading, time, uuid

ADMIN = "wma_probe-" + uuid.uuid4().hex  # long enough for the admin-token minimum


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


class Server:
    def __init__(self, binary, directory, extra=(), database=None):
        self.port = free_port()
        self.db = database or os.path.join(directory, f"probe-{self.port}.sqlite")
        env = dict(os.environ, WAYMARK_ADMIN_TOKEN=ADMIN)
        self.proc = subprocess.Popen([binary, "serve", "--port", str(self.port), "--database", self.db, *extra],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in self.proc.stdout:
            if "serving on" in line: break
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def rss_mb(self, field="VmRSS"):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith(field): return int(line.split()[1]) / 1024
        except FileNotFoundError:
            return float("nan")
        return float("nan")

    def alive(self): return self.proc.poll() is None

    def stop(self):
        self.proc.terminate()
        try: self.proc.wait(10)
        except subprocess.TimeoutExpired: self.proc.kill()

    def request(self, method, path, body=None, token=None, headers=None, timeout=600, source=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0) if source else None)
        h = dict(headers or {})
        if token: h["Authorization"] = "Bearer " + token
        if isinstance(body, str): body = body.encode()
        start = time.time()
        try:
            c.request(method, path, body, h)
            r = c.getresponse(); data = r.read()
            return r.status, data, time.time() - start, r.getheaders()
        except Exception as e:  # connection reset, timeout: reported as status 0
            return 0, str(e).encode(), time.time() - start, []
        finally:
            c.close()

    def device(self, name):
        status, data, _, _ = self.request("POST", "/api/devices", json.dumps({"name": name}), ADMIN)
        reply = json.loads(data); return reply["id"], reply["token"]


class Peak:
    """Samples the server's RSS every 50 ms while a block runs; `.peak` is the highest seen, in MB."""
    def __init__(self, server): self.server, self.peak, self.running = server, 0.0, True
    def __enter__(self):
        self.before = self.server.rss_mb()
        def run():
            while self.running:
                self.peak = max(self.peak, self.server.rss_mb() or 0); time.sleep(0.05)
        self.thread = threading.Thread(target=run, daemon=True); self.thread.start(); return self
    def __exit__(self, *a):
        self.running = False; self.thread.join(); self.after = self.server.rss_mb()


def now_s(): return int(time.time())


def reproductions(binary, directory):
    rows = []
    s = Server(binary, directory)
    ida, ta = s.device("alpha")
    def row(name, before, status, size, seconds, peak, after, note=""):
        rows.append((name, before, f"{status}", f"{size:,} B", f"{seconds:.2f} s", f"{peak:.0f} MB", f"{after:.0f} MB", note))
        print(f"{name:<44} {status!s:>4} {size:>12,} B {seconds:8.2f} s  peak {peak:6.0f} MB  after {after:6.0f} MB  {note}", flush=True)

    def one(name, before, method, path, body, token=ta, headers=None, note=""):
        with Peak(s) as p:
            status, data, seconds, _ = s.request(method, path, body, token, headers)
        row(name, before, status, len(data), seconds, p.peak, p.after, note or data[:90].decode("utf-8", "replace").replace("\n", " "))
        return status, data

    json_h = {"Content-Type": "application/json"}
    one("H1 1M zeros to /api/ingest (2 MB)", "422, 287 MB reply, 123 s, RSS 3.6 GB",
        "POST", "/api/ingest", '{"locations":[' + ",".join(["0"] * 1_000_000) + "]}", headers=json_h)
    one("H1 5.24M zeros to /api/ingest (10 MiB)", "server crashed (SIGSEGV) after 70 s",
        "POST", "/api/ingest", '{"locations":[' + ",".join(["0"] * 5_240_000) + "]}", headers=json_h)
    one("H1 1M {} to /api/ingest (3 MB)", "318 MB reply, 132 s, RSS 3.7 GB",
        "POST", "/api/ingest", '{"locations":[' + ",".join(["{}"] * 1_000_000) + "]}", headers=json_h)
    one("H1 /pub 200k position-less (4.2 MB)", "422, 49 MB reply, RSS 873 MB",
        "POST", "/pub", "[" + ",".join(['{"_type":"location"}'] * 200_000) + "]", headers=json_h)
    gpx = ('<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
           + '<trkpt lat="0" lon="0"/>' * 400_000 + "</trkseg></trk></gpx>")
    one("H1 GPX 400k trkpt without time (9.6 MB)", "422, 17.8 s, RSS 594 MB", "POST", f"/api/devices/{ida}/gpx", gpx)

    # H2: four anonymous 10 MiB bodies at once, while a probe times /last.
    n = (10485760 - 20) // 2
    anon = ('{"location":[' + ",".join(["0"] * n) + "]}").encode()
    results, probes = [], []
    s.request("POST", "/api/ingest", json.dumps({"locations": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [14, 46]},
                                                               "properties": {"timestamp": now_s() - 10}}]}), ta)
    with Peak(s) as p:
        threads = [threading.Thread(target=lambda: results.append(s.request("POST", "/", anon, None, json_h))) for _ in range(4)]
        for t in threads: t.start()
        while any(t.is_alive() for t in threads):
            probes.append(s.request("GET", f"/api/devices/{ida}/last", None, ADMIN, timeout=10)[2]); time.sleep(0.2)
        for t in threads: t.join()
    row("H2 4 × anonymous 10 MiB to / at once", "401 after 12–24 s, RSS 3.4 GB, /last >10 s",
        ",".join(str(r[0]) for r in results), max(len(r[1]) for r in results), max(r[2] for r in results), p.peak, p.after,
        f"/last probe max {max(probes) * 1000:.0f} ms over {len(probes)}")

    for count, before in ((40_000, "28 s"), (500_000, ">12 min, hung other requests")):
        attrs = " ".join(f'a{i}="1"' for i in range(count))
        body = ('<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
                f'<trkpt lat="46" lon="14" {attrs}><time>2026-11-23T10:00:00Z</time></trkpt></trkseg></trk></gpx>')
        one(f"H3 GPX point with {count:,} attributes ({len(body) / 1e6:.1f} MB)", before, "POST", f"/api/devices/{ida}/gpx", body)

    act = "a" + "\u0301" * 4_000_000
    status, _ = one("M1 activity: one 8 MB grapheme cluster", "stored 8,000,001 bytes", "POST", "/api/ingest",
                    json.dumps({"locations": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [14, 46]},
                                               "properties": {"timestamp": now_s() - 60, "activity": act}}]}, ensure_ascii=False), headers=json_h)
    _, data, _, _ = s.request("GET", f"/api/devices/{ida}/positions?limit=10000", None, ADMIN)
    stored = max(len((p_.get("activity") or "").encode()) for p_ in json.loads(data)["positions"])
    rows.append(("M1 activity bytes stored", "8,000,001", f"{stored}", "", "", "", "", ""))
    print(f"M1 activity bytes stored: {stored}")
    for what, path, body in (("device name", "/api/devices", {"name": "a" + "\u0301" * 4_000_000}),
                             ("fence name", "/api/fences", {"id": "f_g", "name": "a" + "\u0301" * 4_000_000, "lat": 46, "lon": 14, "radius": 100})):
        one(f"M1 {what}: one 8 MB grapheme cluster", "201 (stored at full size)", "POST", path, json.dumps(body, ensure_ascii=False), ADMIN)

    for i, a in enumerate(("@SUM(1+1)", "+SUM(1,2)", "-2+3+cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")')):
        s.request("POST", "/api/ingest", json.dumps({"locations": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [15, 47]},
                                                                   "properties": {"timestamp": now_s() - 50 + i, "activity": a}}]}), ta)
    _, csv, _, _ = s.request("GET", f"/api/devices/{ida}/export?format=csv", None, ADMIN)
    import csv as csvmodule, io
    cells = [row[-1] for row in csvmodule.reader(io.StringIO(csv.decode())) if row and row[-1]][-4:]
    rows.append(("M2 CSV cells of formula activities", "@SUM(1+1) unquoted", " ".join(cells), "", "", "", "", ""))
    print("M2 CSV activity cells:", cells)

    for u in ("http://169.254.169.254/latest/meta-data/iam/", "http://metadata.google.internal/computeMetadata/v1/",
              "http://0x7f000001/", "http://2130706433/", "http://0/", "http://[::1]:1/", "http://127.0.0.1:99999/",
              "http://user:pass@127.0.0.1:1/", "http://127.0.0.1:1/" + "a" * 9_000_000):
        st, data, _, _ = s.request("POST", "/api/webhooks", json.dumps({"url": u}), ADMIN)
        rows.append((f"M3/L8 webhook {u[:48]}", "201", str(st), "", "", "", "", ""))
        print(f"M3/L8 webhook {u[:60]}: {st}")

    # M4: 200 connections trickling headers; count those the server closed within 40 s.
    socks = []
    for _ in range(200):
        c = socket.create_connection(("127.0.0.1", s.port)); c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"); socks.append(c)
    start, closed = time.time(), 0
    for c in socks: c.settimeout(max(0.1, 40 - (time.time() - start)))
    for c in socks:
        try:
            while c.recv(4096): pass
            closed += 1
        except (socket.timeout, ConnectionResetError):
            closed += 0 if isinstance(sys.exc_info()[1], socket.timeout) else 1
        c.close()
    rows.append(("M4 200 trickled-header connections closed", "0 of 200 (60 s)", f"{closed} of 200", "", f"{time.time() - start:.1f} s", "", "", ""))
    print(f"M4 closed {closed} of 200 slow connections in {time.time() - start:.1f} s")

    # M5: a stalled stream, then 20 batches of 130k of the device's own points.
    st, data, _, _ = s.request("POST", "/api/stream/ticket", None, ta)
    ticket = json.loads(data)["ticket"]
    stalled = socket.socket(); stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096); stalled.connect(("127.0.0.1", s.port))
    stalled.sendall(f"GET /api/stream?ticket={ticket} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    base = int(time.time() * 1000) - 400 * 86400000
    with Peak(s) as p:
        for b in range(20):
            body = '{"locations":[' + ",".join('{"geometry":{"coordinates":[14,46]},"properties":{"timestamp":%d}}' % (base + b * 130000 + i)
                                              for i in range(130000)) + "]}"
            s.request("POST", "/api/ingest", body, ta, json_h)
    rows.append(("M5 stalled stream + 20 × 130k own points", "RSS 155 MB → 1,548 MB", "", "", "", f"{p.peak:.0f} MB", f"{p.after:.0f} MB",
                 f"from {p.before:.0f} MB"))
    print(f"M5 RSS {p.before:.0f} → peak {p.peak:.0f} → {p.after:.0f} MB")
    stalled.close()

    tst = now_s() - 100
    body = json.dumps([{"_type": "location", "lat": 46, "lon": 14, "tst": tst}] + [{"_type": "location", "lat": 46, "lon": 14, "tst": "x" * 1_000_000}] * 9)
    st, data, _, headers = s.request("POST", "/pub", body, ta, json_h)
    header = sum(len(k) + len(v) + 4 for k, v in headers)
    rows.append(("L1 /pub response headers", "9,000,491 B", f"{header:,} B", "", "", "", "", ""))
    print(f"L1 response headers {header} B")

    for i in range(10):
        fences = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "id": f"f{i}_{j}", "properties": {"name": "x", "radiusMeters": 50},
             "geometry": {"type": "Point", "coordinates": [14 + j * 1e-4, 46 + i * 1e-3]}} for j in range(10_000)]}
        s.request("POST", "/api/fences", json.dumps(fences), ADMIN)
    one("L2 GET /api/fences with 100k fences", "25.5 MB, 14.7 s", "GET", "/api/fences", None, ta)
    mode = oct(os.stat(s.db).st_mode & 0o777)
    rows.append(("L3 database file mode", "0o644", mode, "", "", "", "", "")); print("L3", mode)
    st, _, _, headers = s.request("GET", "/dashboard")
    names = {k.lower() for k, _ in headers}
    sec = [h for h in ("content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy") if h in names]
    rows.append(("L7 dashboard security headers", "none", ", ".join(sec), "", "", "", "", "")); print("L7", sec)
    st, _, _, _ = s.request("GET", f"/api/devices?token={ADMIN}")
    rows.append(("L5 admin token in ?token=", "200", str(st), "", "", "", "", "")); print("L5", st)
    alive = s.alive(); s.stop()
    weak = subprocess.run([binary, "serve", "--port", str(free_port()), "--database", os.path.join(directory, "weak.sqlite")],
                          env=dict(os.environ, WAYMARK_ADMIN_TOKEN="x"), capture_output=True, text=True, timeout=30)
    rows.append(("L4 WAYMARK_ADMIN_TOKEN=x", "accepted", f"exit {weak.returncode}", "", "", "", "", (weak.stdout + weak.stderr).strip()[:80]))
    print("L4", weak.returncode, (weak.stdout + weak.stderr).strip()[:100])
    print(f"server alive after every reproduction: {alive}")
    return rows


def cpu_seconds(server):
    with open(f"/proc/{server.proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reproductions2(binary, directory):
    """The second probe's reproductions (shared/research/security-probe-2.md), one fresh server each where
    state matters; prints the figures the issue's table needs."""
    def line(name, text): print(f"{name:<8} {text}", flush=True)
    def feature_list(points): return json.dumps({"locations": [feature(*p) for p in points]})
    base = now_s() - 3 * 86400

    s = Server(binary, directory); ida, ta = s.device("alpha")
    s.request("POST", "/api/fences", json.dumps({"name": "depot", "lat": 46.5, "lon": 14.5, "radius": 100}), ADMIN)
    for n in (1000, 3000):
        body = feature_list([(14.0, 46.0, base + i) if i % 2 == 0 else (15.98, 47.98, base + i) for i in range(n)])
        c0 = cpu_seconds(s); st, d, secs, _ = s.request("POST", "/api/ingest", body, ta); c1 = cpu_seconds(s)
        line("H1", f"{n} zig-zag points ({len(body):,} B): {st}, {secs:.2f} s, server CPU {c1 - c0:.2f} s = {(c1 - c0) / n * 1000:.3f} ms/point, "
                   f"events {len(json.loads(d).get('events', []))}")
        base += n
    s.stop()

    s = Server(binary, directory); ida, ta = s.device("alpha")
    fences = [{"type": "Feature", "id": "f_%04d" % k, "properties": {"name": "f%d" % k, "radiusMeters": 60},
               "geometry": {"type": "Point", "coordinates": [14.0 + k * 0.002, 46.5]}} for k in range(500)]
    s.request("POST", "/api/fences", json.dumps({"type": "FeatureCollection", "features": fences}), ADMIN)
    for spacing in (1, 600):
        body = feature_list([(13.99 if i % 2 == 0 else 15.01, 46.5, base + i * spacing) for i in range(1000)])
        with Peak(s) as p:
            st, d, secs, _ = s.request("POST", "/api/ingest", body, ta)
        line("H2", f"1000 points across 500 fences, {spacing} s apart: {st}, reply {len(d):,} B, {secs:.2f} s, RSS peak {p.peak:.0f} MB; "
                   f"{d[:150].decode(errors='replace')}")
        base += 1000 * spacing
    st, d, _, _ = s.request("GET", "/api/events?limit=10000", None, ADMIN)
    line("H2", f"events stored: {len(json.loads(d)['events'])}")
    s.stop()

    s = Server(binary, directory, extra=("--header-timeout", "3", "--body-timeout", "6")); ida, ta = s.device("alpha")
    socks = []
    for _ in range(1000):
        try:
            c = socket.create_connection(("127.0.0.1", s.port)); c.sendall(b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n")
            socks.append(c)
        except OSError: break
    answers = {}
    for c in socks:
        try:
            c.settimeout(5); head = c.recv(4096); c.sendall(b"x")
            code = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.1 ") else "none"
        except (OSError, IndexError): code = "closed"
        answers[code] = answers.get(code, 0) + 1
    during, _, _, _ = s.request("POST", "/api/ingest", feature_list([(14, 46, now_s() - 6)]), ta, source="127.0.0.2")
    time.sleep(8)
    still = 0
    for c in socks:
        try:
            c.settimeout(0.01); data = c.recv(4096)
            if data and b"408" not in data: still += 1
            elif not data: pass
        except socket.timeout: still += 1
        except OSError: pass
    st, _, _, _ = s.request("POST", "/api/ingest", feature_list([(14, 46, now_s() - 5)]), ta, source="127.0.0.2")
    line("H3", f"1000 answered-early sockets (header 3 s, body 6 s), answers {answers}: {still} still open after 8 s; "
               f"a device's upload from another address while they were held: {during}, after: {st}")
    for c in socks: c.close()
    s.stop()

    s = Server(binary, directory); ida, ta = s.device("alpha")
    zeros = ",".join(["0"] * 32700)
    for r in range(167):
        s.request("POST", "/pub", "[" + ",".join('{"_type":"status","tst":%d,"z":[%s]}' % (1_700_000_000 + r * 6 + i, zeros) for i in range(6)) + "]",
                  ta, {"Content-Type": "application/json"})
    with Peak(s) as p:
        st, d, secs, _ = s.request("GET", f"/api/devices/{ida}/device-events?limit=1000", None, ta)
    line("H4", f"device-events?limit=1000 over 1000 records of 64 KiB: {st}, {len(d):,} B, {secs:.2f} s, RSS {p.before:.0f} → peak {p.peak:.0f} MB; "
               f"records {len(json.loads(d)['device_events'])}, next_after {json.loads(d)['next_after']}")
    st, d, _, _ = s.request("GET", f"/api/devices/{ida}/device-events?limit=10000", None, ta)
    line("H4", f"limit=10000: {st} {d[:100].decode(errors='replace')}")
    s.stop()

    s = Server(binary, directory); ida, ta = s.device("alpha")
    start = now_s() - 200_001 * 601
    for s0 in range(0, 200_000, 50_000):
        s.request("POST", "/api/ingest", feature_list([(14.0, 46.0, start + i * 601) for i in range(s0, s0 + 50_000)]), ta)
    with Peak(s) as p:
        st, d, secs, _ = s.request("GET", f"/api/devices/{ida}/rides", None, ADMIN)
    line("H5", f"/rides over 200,000 single-point rides: {st}, {len(d):,} B, {secs:.2f} s, RSS {p.before:.0f} → peak {p.peak:.0f} MB; "
               f"rides {len(json.loads(d)['rides'])}, next_cursor {json.loads(d)['next_cursor']}")
    st, d, _, _ = s.request("GET", f"/api/devices/{ida}/rides?gap=0.5", None, ADMIN)
    line("H5", f"gap=0.5: {st}")
    s.stop()

    s = Server(binary, directory); ida, ta = s.device("alpha")
    before = s.rss_mb(); t = time.time()
    for n in range(20000):
        c = socket.create_connection(("127.0.0.1", s.port))
        c.sendall(f"GET /api/stream?token={ta} HTTP/1.1\r\nHost: x\r\n\r\n".encode()); c.recv(200); c.close()
    time.sleep(2)
    line("H6", f"20,000 streams opened and closed in {time.time() - t:.1f} s: RSS {before:.0f} → {s.rss_mb():.0f} MB")
    s.stop()

    s = Server(binary, directory, extra=("--max-connections", "40", "--header-timeout", "3", "--body-timeout", "5"))
    ida, ta = s.device("alpha"); idb, tb = s.device("bravo")
    socks, statuses = [], {}
    for _ in range(40):
        c = socket.create_connection(("127.0.0.1", s.port)); c.sendall(f"GET /api/stream?token={ta} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        socks.append(c)
    for c in socks:
        try: c.settimeout(2); head = c.recv(200).split(b" ")[1].decode(); statuses[head] = statuses.get(head, 0) + 1
        except Exception: statuses["none"] = statuses.get("none", 0) + 1
    time.sleep(6)
    st, _, _, _ = s.request("POST", "/api/ingest", feature_list([(14, 46, now_s() - 5)]), tb, source="127.0.0.2")
    line("M1", f"40 streams from one token (--max-connections 40): answers {statuses}; after 6 s another device's upload: {st}")
    for c in socks: c.close()
    s.stop()

    import math
    s = Server(binary, directory); ida, ta = s.device("alpha")
    for v in (60_000, 10_000):
        ring = [[14.5 + .5 * math.cos(2 * math.pi * k / v), 46.5 + .5 * math.sin(2 * math.pi * k / v)] for k in range(v)]
        st, d, _, _ = s.request("POST", "/api/fences", json.dumps({"type": "Feature", "id": f"f_big{v}", "properties": {"name": "big"},
                                                                   "geometry": {"type": "Polygon", "coordinates": [ring + [ring[0]]]}}), ADMIN)
        line("M2", f"{v}-vertex polygon: {st} {d[:120].decode(errors='replace')}")
    day = now_s() - 86400
    body = feature_list([(14.05 + (i % 2) * 0.001, 46.05, day + i) for i in range(1000)])
    c0 = cpu_seconds(s); st, _, secs, _ = s.request("POST", "/api/ingest", body, ta); c1 = cpu_seconds(s)
    line("M2", f"1000 points in the 10k polygon's box, outside it: {st}, {secs:.3f} s, server CPU {(c1 - c0):.3f} s = {(c1 - c0):.3f} ms/point")
    body = feature_list([(14.5 + (i % 2) * 0.001, 46.5, day + 2000 + i) for i in range(1000)])
    c0 = cpu_seconds(s); st, _, secs, _ = s.request("POST", "/api/ingest", body, ta); c1 = cpu_seconds(s)
    line("M2", f"1000 points inside it: {st}, {secs:.3f} s, server CPU {(c1 - c0):.3f} s = {(c1 - c0):.3f} ms/point")
    s.stop()

    s = Server(binary, directory); ida, ta = s.device("alpha")
    now = now_s()
    s.request("POST", "/api/ingest", feature_list([(14, 46, now - 600), (14, 46, now - 590)]), ta, {"Idempotency-Key": "batch-1"})
    st, d, _, _ = s.request("POST", "/api/ingest", feature_list([(15, 47, now - 500 + i) for i in range(5)]), ta, {"Idempotency-Key": "batch-1"})
    line("M3", f"reused key, new body: {st} {d[:160].decode(errors='replace')}")
    for u in ["http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "http://[64:ff9b:1::a00:1]/", "http://[2002:a9fe:a9fe::1]/",
              "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "http://[::ffff:0:7f00:1]/"]:
        st, d, _, _ = s.request("POST", "/api/webhooks", json.dumps({"url": u}), ADMIN)
        line("M4", f"{u}: {st} {d[:130].decode(errors='replace')}")
    st, d, secs, _ = s.request("POST", "/api/ingest", '{"locations":[' + "1" * 9_000_000 + "]}", ta)
    line("L1", f"9 MB number literal: {st}, reply {len(d):,} B, {secs:.2f} s")
    c = socket.create_connection(("127.0.0.1", s.port)); c.settimeout(5)
    c.sendall(b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    try:
        while True:
            chunk = c.recv(4096)
            if not chunk: break
            got += chunk
    except OSError: pass
    line("L3", f"Transfer-Encoding: xchunked: {got.count(b'HTTP/1.1 ')} response(s): {got[:60]!r}")
    st, d, _, _ = s.request("POST", "/api/ingest", json.dumps({"locations": [feature(14, 46, "2025-06-15T12:00:00+99:99")]}), ta)
    line("L5", f"offset +99:99: {st} {d[:140].decode(errors='replace')}")
    s.stop()


def good_client(port, token, seconds, results):
    """One point every 100 ms with an Idempotency-Key, as a phone would; reports latencies and acknowledgements."""
    latencies, acked, failures, i = [], [], 0, 0
    # SOAK_GOOD_LOG: a file that gets one line per request (key, start, milliseconds, status), to match with a server trace.
    log = open(os.environ["SOAK_GOOD_LOG"], "w", buffering=1) if os.environ.get("SOAK_GOOD_LOG") else None
    end = time.time() + seconds
    while time.time() < end:
        ts = int(time.time() * 1000) - 5000
        body = json.dumps({"locations": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [14.5, 46.05]},
                                          "properties": {"timestamp": ts / 1000}}]})
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0))
        start = time.time()
        try:
            c.request("POST", "/api/ingest", body, {"Authorization": "Bearer " + token, "Idempotency-Key": f"good-{i}"})
            r = c.getresponse(); r.read(); secs = time.time() - start
            if r.status == 200: latencies.append(secs); acked.append(ts)
            else: failures += 1
            if log: log.write(f"good-{i} {start:.3f} {secs * 1000:.1f} {r.status}\n")
        except Exception:
            failures += 1; secs = time.time() - start
        finally:
            c.close()
        i += 1; time.sleep(max(0, 0.1 - secs))
    results.put((latencies, acked, failures))


def feature(lon, lat, ts):
    return {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]}, "properties": {"timestamp": ts}}


def soak(binary, directory, seconds, database=None):
    # SOAK_SERVE_ARGS: extra `waymark serve` arguments (split on spaces), e.g. "--durability relaxed" to see what the
    # commit's sync costs the well-behaved client.
    s = Server(binary, directory, extra=os.environ.get("SOAK_SERVE_ARGS", "").split(), database=database)
    if os.environ.get("SOAK_LOADGEN_NICE"):  # run the load generator (this process) at a lower CPU priority
        os.nice(int(os.environ["SOAK_LOADGEN_NICE"]))
    tag = uuid.uuid4().hex[:6]   # device names unique per run (a shared PostgreSQL database keeps old ones)
    ida, ta = s.device("good-" + tag); idb, tb = s.device("abuser-" + tag)
    idc, tc = s.device("reader-" + tag)
    stop = threading.Event(); counts = {}
    def count(kind): counts[kind] = counts.get(kind, 0) + 1
    def loop(kind, fn):
        while not stop.is_set():
            try: fn()
            except Exception: pass
            count(kind)
    # --- setup for the second probe's abusers ---
    base = now_s() - 5 * 86400
    s.request("POST", "/api/fences", json.dumps({"name": "depot", "lat": 46.5, "lon": 14.5, "radius": 100}), ADMIN)
    row = [{"type": "Feature", "id": f"row_{tag}_{k}", "properties": {"name": f"r{k}", "radiusMeters": 60},
            "geometry": {"type": "Point", "coordinates": [20.0 + k * 0.002, 40.5]}} for k in range(500)]
    s.request("POST", "/api/fences", json.dumps({"type": "FeatureCollection", "features": row}), ADMIN)
    import math
    ring = [[30.5 + .5 * math.cos(2 * math.pi * k / 10_000), 40.5 + .5 * math.sin(2 * math.pi * k / 10_000)] for k in range(10_000)]
    s.request("POST", "/api/fences", json.dumps({"type": "Feature", "id": f"big_{tag}", "properties": {"name": "big"},
                                                 "geometry": {"type": "Polygon", "coordinates": [ring + [ring[0]]]}}), ADMIN)
    zeros = ",".join(["0"] * 30_000)   # device events of about 60 KB, read back by the H4 reader
    for r in range(20):
        s.request("POST", "/pub", "[" + ",".join('{"_type":"status","tst":%d,"z":[%s]}' % (1_700_000_000 + r * 6 + i, zeros)
                                                  for i in range(6)) + "]", tc, {"Content-Type": "application/json"})
    rides = '{"locations":[' + ",".join(json.dumps(feature(14.0, 46.0, base + i * 601)) for i in range(700)) + "]}"
    s.request("POST", "/api/ingest", rides, tc)   # 700 single-point rides for the H5 reader
    rounds = [0]
    def zig():
        """H1 (probe 2): points alternating between places 2° apart, new ones each time (so each is evaluated)."""
        rounds[0] += 1; t0 = base + 400_000 + rounds[0] * 3000
        return json.dumps({"locations": [feature(14.0 if i % 2 == 0 else 15.98, 46.0 if i % 2 == 0 else 47.98, t0 + i)
                                         for i in range(3000)]})
    storm = json.dumps({"locations": [feature(19.99 if i % 2 == 0 else 21.01, 40.5, base + 100_000 + i * 600) for i in range(1000)]})
    def near_polygon():
        """M2: points inside the big polygon's box, outside the polygon, new ones each time."""
        rounds[0] += 1; t0 = base + 400_000 + rounds[0] * 3000
        return json.dumps({"locations": [feature(30.05 + (i % 2) * 0.001, 40.05, t0 + i) for i in range(1000)]})
    def answered_early():
        """H3 (probe 2): heads answered 401 before their body, then the body: the timers must still close them."""
        socks = []
        for _ in range(300):
            if stop.is_set(): break
            try:
                c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
                c.sendall(b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n"); socks.append(c)
            except OSError: pass
        for c in socks:
            try: c.recv(4096); c.sendall(b"x")
            except OSError: pass
        stop.wait(25)
        for c in socks: c.close()
    def stream_churn():
        """H6: open and drop a live stream."""
        c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        c.sendall(f"GET /api/stream?token={tb} HTTP/1.1\r\nHost: x\r\n\r\n".encode()); c.recv(200); c.close()
    def streams_held():
        """M1: hold as many streams as one token may (more get 429)."""
        socks = []
        for _ in range(40):
            try:
                c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
                c.sendall(f"GET /api/stream?token={tb} HTTP/1.1\r\nHost: x\r\n\r\n".encode()); socks.append(c)
            except OSError: pass
        stop.wait(10)
        for c in socks: c.close()
    reuse = [0]
    def key_reuse():
        """M3: one Idempotency-Key, a different body each time (422 after the first)."""
        reuse[0] += 1
        s.request("POST", "/api/ingest", json.dumps({"locations": [feature(14.2, 46.2, base + 300_000 + reuse[0])]}), tb,
                  {"Idempotency-Key": "reused-" + tag})
    ds = {"Content-Type": "application/json"}
    zeros_body = '{"locations":[' + ",".join(["0"] * 1_000_000) + "]}"
    anon = '{"location":[' + ",".join(["0"] * 500_000) + "]}"
    attrs = ('<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="46" lon="14" '
             + " ".join(f'a{i}="1"' for i in range(500_000)) + "><time>2026-11-23T10:00:00Z</time></trkpt></trkseg></trk></gpx>")
    invalid = '{"locations":[' + ",".join(['{"geometry":{"coordinates":[14,95]},"properties":{"timestamp":1}}'] * 100_000) + "]}"
    def slowloris():
        socks = []
        for _ in range(50):
            try:
                c = socket.create_connection(("127.0.0.1", s.port)); c.sendall(b"GET /metrics HTTP/1.1\r\n"); socks.append(c)
            except OSError: pass
        for _ in range(10):
            if stop.is_set(): break
            for c in socks:
                try: c.sendall(b"X-a: b\r\n")
                except OSError: pass
            time.sleep(1)
        for c in socks: c.close()
    def stalled_stream():
        c = socket.socket(); c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096); c.connect(("127.0.0.1", s.port))
        c.sendall(f"GET /api/stream?token={tb} HTTP/1.1\r\nHost: x\r\n\r\n".encode()); stop.wait(10); c.close()
    abusers = [
        ("H1 million zeros", lambda: s.request("POST", "/api/ingest", zeros_body, tb)),
        ("H1 100k invalid points", lambda: s.request("POST", "/api/ingest", invalid, tb)),
        ("H2 anonymous 1 MB", lambda: s.request("POST", "/", anon, None, ds)),
        ("H3 500k-attribute GPX", lambda: s.request("POST", f"/api/devices/{idb}/gpx", attrs, tb)),
        ("M4 50 slowloris connections", slowloris),
        ("M5 stalled stream", stalled_stream),
        ("M5 own uploads", lambda: s.request("POST", "/api/ingest", '{"locations":[' + ",".join(
            '{"geometry":{"coordinates":[14,46]},"properties":{"timestamp":%d}}' % (int(time.time() * 1000) - 86400000 - i) for i in range(5000)) + "]}", tb)),
        ("2H1 3000-point zig-zag", lambda: s.request("POST", "/api/ingest", zig(), tb)),
        ("2H2 fence-event storm", lambda: s.request("POST", "/api/ingest", storm, tb)),
        ("2H3 300 answered-early sockets", answered_early),
        ("2H4 device-events reader", lambda: s.request("GET", f"/api/devices/{idc}/device-events?limit=1000", None, tc)),
        ("2H5 rides reader", lambda: s.request("GET", f"/api/devices/{idc}/rides?gap=1", None, tc)),
        ("2H6 stream churn", stream_churn),
        ("2M1 40 streams held", streams_held),
        ("2M2 points near a 10k-vertex polygon", lambda: s.request("POST", "/api/ingest", near_polygon(), tb)),
        ("2M3 Idempotency-Key reuse", key_reuse),
    ]
    only = os.environ.get("SOAK_ONLY")  # e.g. "H1,M4": run only the abusers whose names start with these
    if only is not None:
        abusers = [a for a in abusers if any(a[0].startswith(k) for k in only.split(",") if k)]
    threads = [threading.Thread(target=loop, args=a, daemon=True) for a in abusers]
    # The well-behaved client runs in a process of its own, so the load generator's threads (which share
    # Python's interpreter lock) do not add their waits to its latency.
    import multiprocessing
    results = multiprocessing.Queue()
    good = multiprocessing.Process(target=good_client, args=(s.port, ta, seconds, results))
    with Peak(s) as p:
        for t in threads: t.start()
        time.sleep(1)  # let the abuse start first
        good.start()
        latencies, acked, failures = results.get()
        good.join()
        stop.set()
    for t in threads: t.join(30)
    st, data, _, _ = s.request("GET", f"/api/devices/{ida}/positions?limit=10000", None, ADMIN, source="127.0.0.3")
    stored = {round(p_["timestamp_ms"]) if "timestamp_ms" in p_ else p_["timestamp"] for p_ in json.loads(data)["positions"]}
    stored_count = len(json.loads(data)["positions"])
    latencies.sort()
    p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)] if latencies else float("nan")
    p50 = statistics.median(latencies) if latencies else float("nan")
    worst = latencies[-1] if latencies else float("nan")
    print(f"\nsoak {seconds} s: well-behaved uploads {len(acked)} acknowledged, {failures} failed; "
          f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {worst * 1000:.1f} ms; "
          f"stored {stored_count} of {len(acked)} acknowledged; server RSS {p.before:.0f} → peak {p.peak:.0f} MB; alive {s.alive()}")
    print("abusive requests sent:", ", ".join(f"{k}: {v}" for k, v in counts.items()))
    s.stop()
    return stored_count >= len(acked) and p99 < 0.1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary"); parser.add_argument("--soak", type=int, default=0)
    parser.add_argument("--skip-reproductions", action="store_true")
    parser.add_argument("--probe2", action="store_true", help="run the second probe's reproductions instead of the first's")
    parser.add_argument("--database", help="a postgres:// URL for the soak's server (default: a fresh SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        ok = True
        if args.probe2:
            reproductions2(args.binary, directory)
        elif not args.skip_reproductions:
            reproductions(args.binary, directory)
        if args.soak:
            ok = soak(args.binary, directory, args.soak, args.database)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
