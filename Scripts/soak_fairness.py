#!/usr/bin/env python3
"""Fairness soak (#33 item 3): one device floods valid single-point requests while other devices send at a
phone's normal rate, and an operator's dashboard polls; prints the others' latency and how many acknowledged
points are missing from the store.

Each run starts a fresh `waymark serve` (a fresh SQLite file, or the PostgreSQL database given), then for
SECONDS:
- the flooder: one device token, FLOOD_PROCS processes x FLOOD_CONNS keep-alive connections from 127.0.0.1,
  each sending OwnTracks `POST /pub` points (every one valid and new) as fast as they are answered, and
  ignoring 429 and `Retry-After`, as an abusive or broken client would;
- the others: OTHERS devices, each from an address of its own (127.0.0.10, .11, ...), one point a second on a
  keep-alive connection (OwnTracks, Traccar Client and GPSLogger at their fastest setting);
- the dashboard: the admin polls `GET /api/devices` every 2 s from 127.0.0.3.
Afterwards every device's stored points are read back (paged) and compared with the points it was told were
stored (200). Modes, alternated run by run: `limits` (the server's default rate limits) and `off`
(`--rate-limit-per-address off --rate-limit-per-device off`: the baseline, as before the limits existed).

    python3 Scripts/soak_fairness.py .build/release/waymark [--seconds 30] [--runs 3] [--database postgres://…]

Prints one line per run and, per mode, the medians over the runs. Exits 1 when, with the limits, an
acknowledged point is missing, another client or the dashboard was refused, or the others' median p99 is
100 ms or more.
"""
import argparse, base64, http.client, json, multiprocessing, os, socket, statistics, subprocess, sys, tempfile, threading, time, uuid

ADMIN = "wma_fair-" + uuid.uuid4().hex
T0 = 1_700_000_000   # the flooder's points start here, the others' at T0 + 10^7 + 10^5 x index: all unique


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


class Server:
    def __init__(self, binary, database, extra):
        self.port = free_port()
        env = dict(os.environ, WAYMARK_ADMIN_TOKEN=ADMIN)
        self.proc = subprocess.Popen([binary, "serve", "--port", str(self.port), "--database", database, *extra],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in self.proc.stdout:
            if "serving on" in line: break
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def request(self, method, path, body=None, token=ADMIN, source="127.0.0.3"):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60, source_address=(source, 0))
        try:
            c.request(method, path, body, {"Authorization": "Bearer " + token})
            r = c.getresponse(); return r.status, r.read()
        finally:
            c.close()

    def device(self, name):
        status, data = self.request("POST", "/api/devices", json.dumps({"name": name}))
        assert status == 201, (status, data)
        reply = json.loads(data); return reply["id"], reply["token"]

    def stored(self, device_id):
        """Every stored timestamp (seconds) of a device, read page by page."""
        seconds, cursor = set(), None
        while True:
            path = f"/api/devices/{device_id}/positions?limit=10000" + (f"&cursor={cursor}" if cursor else "")
            status, data = self.request("GET", path)
            assert status == 200, (status, data[:200])
            page = json.loads(data)
            for p in page["positions"]:
                seconds.add(round(p["timestamp_ms"] / 1000) if "timestamp_ms" in p else
                            round(__import__("datetime").datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")).timestamp()))
            cursor = page.get("next_cursor")
            if not cursor: return seconds

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.terminate()
        try: self.proc.wait(10)
        except subprocess.TimeoutExpired: self.proc.kill()


def pub_request(port, auth, ts):
    body = b'{"_type":"location","lat":46.05,"lon":14.5,"tst":%d,"acc":5,"tid":"fl"}' % ts
    return (b"POST /pub HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: %s\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (port, auth, len(body))) + body


def read_response(sock, buffer):
    """Reads one response off a keep-alive socket; returns (status, headers text, rest of the buffer)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk: raise ConnectionError("closed")
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        if line[:15].lower() == b"content-length:": length = int(line[15:])
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk: raise ConnectionError("closed")
        rest += chunk
    return status, head, rest[length:]


def flooder(port, token, proc_index, procs, conns, seconds, out):
    """Closed loop on `conns` connections: sends the next point as soon as the last is answered, whatever the answer."""
    auth = b"Basic " + base64.b64encode(b"flood:" + token.encode())
    acked, statuses, lock = [], {}, threading.Lock()
    end = time.time() + seconds
    def loop(slot):
        n = 0
        sock, buffer = None, b""
        while time.time() < end:
            ts = T0 + (n * conns + slot) * procs + proc_index
            n += 1
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=30); buffer = b""
                sock.sendall(pub_request(port, auth, ts))
                status, head, buffer = read_response(sock, buffer)
            except (OSError, ConnectionError, ValueError):
                status = 0
                if sock: sock.close()
                sock = None
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200 and b"x-waymark-rejected" not in head.lower(): acked.append(ts)
        if sock: sock.close()
    threads = [threading.Thread(target=loop, args=(k,)) for k in range(conns)]
    for t in threads: t.start()
    for t in threads: t.join()
    out.put((acked, statuses))


def others(port, devices, seconds, out):
    """Each device from its own address, one point a second on a keep-alive connection; latencies of every request."""
    results, lock = [], threading.Lock()
    start_at = time.time() + 0.5
    def client(index, token):
        auth = "Basic " + base64.b64encode(("phone:" + token).encode()).decode()
        source = f"127.0.0.{10 + index}"
        conn, latencies, acked, refused, failed = None, [], [], 0, 0
        next_at = start_at + index / max(1, len(devices))   # spread over the second
        n = 0
        while next_at < start_at + seconds:
            time.sleep(max(0, next_at - time.time()))
            ts = T0 + 10_000_000 + index * 100_000 + n; n += 1
            body = '{"_type":"location","lat":46.1,"lon":14.6,"tst":%d,"acc":5,"tid":"ph"}' % ts
            begin = time.time()
            try:
                if conn is None: conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
                conn.request("POST", "/pub", body, {"Authorization": auth, "Content-Type": "application/json"})
                r = conn.getresponse(); r.read()
                latencies.append(time.time() - begin)
                if r.status == 200 and r.getheader("X-Waymark-Rejected") is None: acked.append(ts)
                elif r.status == 429: refused += 1
                else: failed += 1
            except Exception:
                failed += 1
                if conn: conn.close()
                conn = None
            next_at += 1.0
        with lock: results.append((latencies, acked, refused, failed))
    threads = [threading.Thread(target=client, args=(i, t)) for i, (_, t) in enumerate(devices)]
    for t in threads: t.start()
    for t in threads: t.join()
    out.put(results)


def dashboard(port, seconds, out):
    statuses, end = {}, time.time() + seconds
    while time.time() < end:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.3", 0))
        try:
            c.request("GET", "/api/devices", None, {"Authorization": "Bearer " + ADMIN}); r = c.getresponse(); r.read()
            statuses[r.status] = statuses.get(r.status, 0) + 1
        except Exception:
            statuses[0] = statuses.get(0, 0) + 1
        finally:
            c.close()
        time.sleep(2)
    out.put(statuses)


def percentile(values, q):
    values = sorted(values)
    return values[max(0, int(len(values) * q) - 1)] if values else float("nan")


def run(binary, mode, seconds, database, args):
    directory = tempfile.mkdtemp(prefix="waymark-fair-")
    db = database or os.path.join(directory, "fair.sqlite")
    extra = [] if mode == "limits" else ["--rate-limit-per-address", "off", "--rate-limit-per-device", "off"]
    s = Server(binary, db, extra)
    try:
        tag = uuid.uuid4().hex[:6]
        flood_id, flood_token = s.device("flood-" + tag)
        phones = [s.device(f"phone-{tag}-{i}") for i in range(args.others)]
        queue = multiprocessing.Queue()
        cpu0 = s.cpu_seconds()
        procs = [multiprocessing.Process(target=flooder, args=(s.port, flood_token, k, args.flood_procs, args.flood_conns,
                                                                seconds + 1, queue)) for k in range(args.flood_procs)]
        for p in procs: p.start()
        time.sleep(1)   # the flood first
        other_queue, dash_queue = multiprocessing.Queue(), multiprocessing.Queue()
        good = multiprocessing.Process(target=others, args=(s.port, phones, seconds - 1, other_queue))
        dash = multiprocessing.Process(target=dashboard, args=(s.port, seconds - 1, dash_queue))
        good.start(); dash.start()
        flood_acked, flood_statuses = [], {}
        for _ in procs:
            acked, statuses = queue.get()
            flood_acked += acked
            for k, v in statuses.items(): flood_statuses[k] = flood_statuses.get(k, 0) + v
        results = other_queue.get(); dash_statuses = dash_queue.get()
        for p in procs + [good, dash]: p.join()
        cpu = s.cpu_seconds() - cpu0
        missing = len(set(flood_acked) - s.stored(flood_id))
        latencies, refused, failed, acked_others = [], 0, 0, 0
        # results arrive in completion order: match them to devices by their timestamps' index block
        stored_by_block = {}
        for index, (device_id, _) in enumerate(phones):
            stored_by_block[index] = s.stored(device_id)
        for lat, acked, ref, fail in results:
            latencies += lat; refused += ref; failed += fail; acked_others += len(acked)
            if acked:
                index = (acked[0] - T0 - 10_000_000) // 100_000
                missing += len(set(acked) - stored_by_block[index])
        row = {"mode": mode, "p50_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
               "p99_ms": percentile(latencies, 0.99) * 1000, "max_ms": max(latencies, default=float("nan")) * 1000,
               "others_acked": acked_others, "others_429": refused, "others_failed": failed,
               "flood_sent": sum(flood_statuses.values()), "flood_200": flood_statuses.get(200, 0),
               "flood_429": flood_statuses.get(429, 0), "flood_other": sum(v for k, v in flood_statuses.items() if k not in (200, 429)),
               "missing": missing, "dashboard": dash_statuses, "server_cpu_s": round(cpu, 1), "alive": s.proc.poll() is None}
        return row
    finally:
        s.stop()
        subprocess.run(["rm", "-rf", directory])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database", help="a postgres:// URL (default: a fresh SQLite file per run)")
    parser.add_argument("--others", type=int, default=20, help="well-behaved devices, one point a second each")
    parser.add_argument("--flood-procs", type=int, default=2)
    parser.add_argument("--flood-conns", type=int, default=8, help="connections per flooding process")
    parser.add_argument("--modes", default="limits,off")
    args = parser.parse_args()
    modes = args.modes.split(",")
    rows = []
    print(f"== {os.cpu_count()} cores; {'PostgreSQL' if args.database else 'SQLite'}; {args.others} others at 1/s; flooder "
          f"{args.flood_procs}x{args.flood_conns} connections; {args.seconds} s a run", flush=True)
    for r in range(args.runs):
        for mode in modes:
            row = run(args.binary, mode, args.seconds, args.database, args)
            rows.append(row)
            print(f"run {r + 1} {mode:<6} others p50 {row['p50_ms']:.1f} ms p99 {row['p99_ms']:.1f} ms max {row['max_ms']:.1f} ms; "
                  f"others acked {row['others_acked']} 429 {row['others_429']} failed {row['others_failed']}; flood sent "
                  f"{row['flood_sent']} (200: {row['flood_200']}, 429: {row['flood_429']}, other: {row['flood_other']}); "
                  f"acked but missing {row['missing']}; dashboard {row['dashboard']}; server CPU {row['server_cpu_s']} s; "
                  f"alive {row['alive']}", flush=True)
    ok = True
    medians = {}
    for mode in modes:
        mine = [x for x in rows if x["mode"] == mode]
        med = lambda key: statistics.median(x[key] for x in mine)
        medians[mode] = med("p99_ms")
        print(f"median of {len(mine)} {mode:<6}: others p50 {med('p50_ms'):.1f} ms, p99 {med('p99_ms'):.1f} ms "
              f"(runs {' · '.join('%.1f' % x['p99_ms'] for x in mine)}); flood 200s {med('flood_200'):.0f} of "
              f"{med('flood_sent'):.0f}; acked but missing: {sum(x['missing'] for x in mine)} in all")
        if mode == "limits":
            ok = ok and all(x["missing"] == 0 and x["others_429"] == 0 and x["others_failed"] == 0 and x["alive"]
                            and set(x["dashboard"]) == {200} for x in mine) and med("p99_ms") < 100
    if "limits" in medians and "off" in medians:
        print(f"others' p99, limits ÷ off (same run): {medians['limits'] / medians['off']:.2f}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
