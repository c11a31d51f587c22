import Crypto
import Foundation
import WaymarkGeo

/// The dashboard served at `GET /`: one self-contained HTML page (inline CSS, JavaScript and SVG,
/// no external assets), served under `contentSecurityPolicy(tiles:)`.
///
/// The operator types the admin token into the page (kept in `sessionStorage` for the tab; a
/// `#token=…` fragment, which browsers never send to the server, is accepted too: `waymark demo` prints
/// such a link). The map (SVG, Web Mercator, north up, a scale bar) opens on every device's last
/// position and the latest ride, with the fences drawn and named; over an optional basemap from the
/// operator's tile server (``ServerConfiguration/tileURLTemplate``), fetched by the browser. The side
/// lists devices, rides (start in the browser's time zone, duration, distance) and fence events; a
/// slider and a play button replay the selected ride; `/api/stream` keeps it all live.
public enum DashboardPage {
    /// The page with the tile template in its `waymark-tiles` meta element (empty: the plain map).
    static func page(tiles: String?) -> String {
        html.replacingOccurrences(of: tilesPlaceholder, with: GPXWriter.escape(tiles ?? "", attribute: true))
    }

    static let tilesPlaceholder = "__WAYMARK_TILES__"

    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
    <title>Waymark</title>
    <meta name="waymark-tiles" content="__WAYMARK_TILES__">
    <style>
    body{font:14px system-ui,sans-serif;margin:0;color:#222}
    header{display:flex;gap:1em;align-items:center;padding:.5em 1em;background:#234;color:#fff}
    header h1{font-size:1.2em;margin:0}
    main{display:flex;gap:1em;padding:1em}
    aside{width:22em;flex:none}
    aside h2{font-size:1em;margin:.8em 0 .3em}
    ul,ol{margin:0;padding-left:1.2em}
    li.selected{font-weight:bold}
    li button{all:unset;cursor:pointer;text-decoration:underline}
    #map{border:1px solid #ccc;background:#f4f6f8}
    #status{font-size:.9em;opacity:.8}
    .fence{fill:rgba(30,120,220,.15);stroke:#1e78dc;stroke-width:1.5}
    .fence-label{font-size:11px;fill:#14508f}
    .device{fill:#2a7;stroke:#fff;stroke-width:2}
    .device-label{font-size:12px;fill:#114;font-weight:bold}
    #track{fill:none;stroke:#d33;stroke-width:2.5;stroke-linejoin:round}
    #playhead{fill:#fff;stroke:#d33;stroke-width:3}
    #player{display:flex;gap:.5em;align-items:center}
    #playback{width:30em}
    body[data-ready] #login{display:none}
    li.ride{list-style:none;margin-left:-1.2em}
    </style></head>
    <body>
    <header><h1>Waymark</h1>
    <form id="login"><input id="token" type="password" placeholder="admin token" autocomplete="off"> <button>Connect</button></form>
    <span id="status">not connected</span></header>
    <main>
    <aside>
    <h2>Devices</h2><ul id="devices"></ul>
    <h2>Rides (last two days)</h2><ul id="rides"></ul>
    <h2>Events</h2><ol id="events" reversed></ol>
    </aside>
    <section>
    <svg id="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 600" width="800" height="600">
    <g id="tiles"></g><g id="fences"></g><polyline id="track" points=""></polyline><g id="devices-layer"></g><g id="marks"></g><g id="scale"></g>
    </svg>
    <div id="player"><button id="play" type="button">Play</button><input id="playback" type="range" min="0" max="0" value="0"><span id="playtime"></span></div>
    <p id="ride-info"></p>
    </section>
    </main>
    <script>
    "use strict";
    const W = 800, H = 600, PAD = 30, EARTH = 40075016.686;
    const state = { devices: [], fences: [], events: [], device: null, ride: null, track: [], live: null, timer: null };
    const TILES = (document.querySelector('meta[name="waymark-tiles"]') || {}).content || "";
    // Times in the browser's own zone; durations as h:mm:ss.
    const local = (iso) => new Date(iso).toLocaleString();
    function duration(seconds) {
      const s = Math.round(seconds), h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
      return (h ? h + " h " : "") + m + " min" + (h ? "" : " " + (s % 60) + " s");
    }
    const $ = (id) => document.getElementById(id);
    const token = () => sessionStorage.getItem("waymark.token") || "";
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get("token")) { sessionStorage.setItem("waymark.token", params.get("token")); history.replaceState(null, "", location.pathname + location.search); }

    async function api(path) {
      const r = await fetch(path, { headers: { Authorization: "Bearer " + token() } });
      if (!r.ok) throw new Error(path + ": HTTP " + r.status);
      return r.json();
    }
    // GET /api/fences is paged: follow `next` (absent on the last page) until every fence is loaded.
    async function allFences() {
      const fences = []; let after = null;
      do {
        const page = await api("/api/fences?limit=10000" + (after === null ? "" : "&after=" + encodeURIComponent(after)));
        fences.push(...page.features); after = typeof page.next === "string" ? page.next : null;
      } while (after !== null);
      return fences;
    }
    function el(tag, attrs, text) {
      const e = document.createElementNS(["li", "button", "span"].includes(tag) ? "http://www.w3.org/1999/xhtml" : "http://www.w3.org/2000/svg", tag);
      for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
      if (text !== undefined) e.textContent = text;
      return e;
    }
    // Web Mercator in the unit square: x east from -180°, y south from the top.
    function mercator(lat, lon) {
      const s = Math.sin(Math.max(-85.05, Math.min(85.05, lat)) * Math.PI / 180);
      return [(lon + 180) / 360, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
    }
    let view = { x0: 0, y0: 0, k: 1, lat: 0 };
    function fit(points) {
      if (!points.length) return;
      const xy = points.map(p => mercator(p[0], p[1]));
      const xs = xy.map(p => p[0]), ys = xy.map(p => p[1]);
      const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
      const k = Math.min((W - 2 * PAD) / Math.max(x1 - x0, 1e-9), (H - 2 * PAD) / Math.max(y1 - y0, 1e-9));
      view = { x0: (x0 + x1) / 2 - (W / 2) / k, y0: (y0 + y1) / 2 - (H / 2) / k, k: k,
               lat: points.reduce((a, p) => a + p[0], 0) / points.length };
    }
    function project(lat, lon) { const [x, y] = mercator(lat, lon); return [(x - view.x0) * view.k, (y - view.y0) * view.k]; }
    function metersPerPixel(lat) { return EARTH * Math.cos(lat * Math.PI / 180) / view.k; }
    function fenceOutline(f) {
      const g = f.geometry;
      if (g.type === "Point") return [[g.coordinates[1], g.coordinates[0]]];
      return g.coordinates[0].map(c => [c[1], c[0]]);
    }
    // The basemap: tiles of the operator's template at the zoom closest to the view, at most 64 of them.
    function drawTiles() {
      const g = $("tiles"); g.replaceChildren();
      if (!TILES) return;
      const z = Math.max(0, Math.min(19, Math.round(Math.log2(view.k / 256)))), n = Math.pow(2, z), size = view.k / n;
      const tx0 = Math.floor(view.x0 * n), ty0 = Math.floor(view.y0 * n);
      const tx1 = Math.floor((view.x0 + W / view.k) * n), ty1 = Math.floor((view.y0 + H / view.k) * n);
      if ((tx1 - tx0 + 1) * (ty1 - ty0 + 1) > 64) return;
      for (let ty = Math.max(0, ty0); ty <= Math.min(n - 1, ty1); ty++) {
        for (let tx = tx0; tx <= tx1; tx++) {
          const wrapped = ((tx % n) + n) % n;
          const href = TILES.replace("{z}", z).replace("{x}", wrapped).replace("{y}", ty).replace("{s}", "abc"[(wrapped + ty) % 3]);
          g.appendChild(el("image", { href: href, class: "tile", x: ((tx / n - view.x0) * view.k).toFixed(1),
            y: ((ty / n - view.y0) * view.k).toFixed(1), width: (size + 0.5).toFixed(1), height: (size + 0.5).toFixed(1) }));
        }
      }
    }
    function fenceCentre(f) {
      const o = fenceOutline(f);
      return [o.reduce((a, c) => a + c[0], 0) / o.length, o.reduce((a, c) => a + c[1], 0) / o.length];
    }
    function draw() {
      const pts = state.track.map(p => [p.lat, p.lon]);
      const lasts = state.devices.filter(d => d.last).map(d => [d.last.lat, d.last.lon]);
      const anchor = pts.length ? pts : lasts;
      const near = state.fences.filter(f => !anchor.length || fenceOutline(f).some(c => anchor.some(a => Math.abs(c[0] - a[0]) < 1 && Math.abs(c[1] - a[1]) < 1)));
      // Every device's last position and the ride; the fences near them when there is neither.
      fit(pts.length || lasts.length ? pts.concat(lasts) : near.flatMap(fenceOutline));
      drawTiles();
      const fences = $("fences"); fences.replaceChildren();
      for (const f of near.slice(0, 2000)) {
        const g = f.geometry;
        if (g.type === "Point") {
          const [x, y] = project(g.coordinates[1], g.coordinates[0]);
          const r = f.properties.radiusMeters / metersPerPixel(g.coordinates[1]);
          fences.appendChild(el("circle", { class: "fence", cx: x.toFixed(1), cy: y.toFixed(1), r: r.toFixed(1), "data-id": f.id }));
        } else {
          const p = g.coordinates[0].map(c => project(c[1], c[0]).map(v => v.toFixed(1)).join(",")).join(" ");
          fences.appendChild(el("polygon", { class: "fence", points: p, "data-id": f.id }));
        }
        const [lx, ly] = project(...fenceCentre(f));
        fences.appendChild(el("text", { class: "fence-label", x: lx.toFixed(1), y: ly.toFixed(1), "text-anchor": "middle", "data-id": f.id }, f.properties.name));
      }
      const layer = $("devices-layer"); layer.replaceChildren();
      for (const d of state.devices.filter(d => d.last)) {
        const [x, y] = project(d.last.lat, d.last.lon);
        layer.appendChild(el("circle", { class: "device", cx: x.toFixed(1), cy: y.toFixed(1), r: 6, "data-device": d.id }));
        layer.appendChild(el("text", { class: "device-label", x: (x + 9).toFixed(1), y: (y + 4).toFixed(1), "data-device": d.id }, d.name));
      }
      const track = $("track");
      track.setAttribute("points", pts.map(p => project(p[0], p[1]).map(v => v.toFixed(1)).join(",")).join(" "));
      track.setAttribute("data-points", String(pts.length));
      const marks = $("marks"); marks.replaceChildren();
      if (pts.length) {
        const [x, y] = project(...pts[pts.length - 1]);
        marks.appendChild(el("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 5, fill: "#d33", id: "last-point" }));
        marks.appendChild(el("circle", { id: "playhead", r: 6 }));
        moveHead();
      }
      drawScale();
    }
    // Replay: the slider picks a point of the ride; Play walks through it.
    function moveHead() {
      const head = $("playhead"), i = Number($("playback").value), p = state.track[i];
      if (!head || !p) return;
      const [x, y] = project(p.lat, p.lon);
      head.setAttribute("cx", x.toFixed(1)); head.setAttribute("cy", y.toFixed(1)); head.setAttribute("data-index", String(i));
      $("playtime").textContent = local(p.timestamp);
    }
    $("playback").oninput = moveHead;
    $("play").onclick = () => {
      if (state.timer) { clearInterval(state.timer); state.timer = null; $("play").textContent = "Play"; return; }
      const slider = $("playback");
      if (Number(slider.value) >= Number(slider.max)) slider.value = "0";
      $("play").textContent = "Pause";
      state.timer = setInterval(() => {
        slider.value = String(Math.min(Number(slider.max), Number(slider.value) + Math.max(1, Math.round(state.track.length / 300))));
        moveHead();
        if (Number(slider.value) >= Number(slider.max)) $("play").onclick();
      }, 50);
    };
    function drawScale() {
      const g = $("scale"); g.replaceChildren();
      const mpp = metersPerPixel(view.lat);
      if (!isFinite(mpp) || mpp <= 0) return;
      let len = Math.pow(10, Math.floor(Math.log10(150 * mpp)));
      for (const m of [5, 2, 1]) if (m * len <= 150 * mpp) { len *= m; break; }
      const px = len / mpp, x = 20, y = H - 20;
      g.appendChild(el("path", { d: `M${x},${y - 6}V${y}H${(x + px).toFixed(1)}V${y - 6}`, stroke: "#222", fill: "none", "stroke-width": 2, id: "scale-bar", "data-meters": String(len) }));
      g.appendChild(el("text", { x: x, y: y - 10, "font-size": 12 }, len >= 1000 ? (len / 1000) + " km" : len + " m"));
    }
    function renderDevices() {
      const ul = $("devices"); ul.replaceChildren();
      for (const d of state.devices) {
        const li = el("li", { class: state.device === d.id ? "selected" : "" });
        const b = el("button", { "data-id": d.id }, d.name);
        b.onclick = () => selectDevice(d.id);
        li.appendChild(b);
        li.appendChild(document.createTextNode(d.last ? ` ${d.last.lat.toFixed(5)}, ${d.last.lon.toFixed(5)} at ${local(d.last.timestamp)}` : " no position"));
        ul.appendChild(li);
      }
    }
    function renderEvents() {
      const ol = $("events"); ol.replaceChildren();
      const fenceName = (id) => (state.fences.find(f => f.id === id) || { properties: { name: id } }).properties.name;
      const deviceName = (id) => (state.devices.find(d => d.id === id) || { name: id }).name;
      for (const e of state.events.slice(-50).reverse()) ol.appendChild(el("li", {}, `${local(e.timestamp)} ${e.kind} ${fenceName(e.fence_id)} (${deviceName(e.device_id)})`));
    }
    async function selectDevice(id) {
      state.device = id; renderDevices();
      // The rides of the two days up to the device's last position: one bounded page, however long its history.
      const dev = state.devices.find(d => d.id === id);
      const since = dev && dev.last ? "?from=" + encodeURIComponent(new Date(Date.parse(dev.last.timestamp) - 2 * 86400000).toISOString()) : "";
      const rides = (await api(`/api/devices/${encodeURIComponent(id)}/rides${since}`)).rides;
      const ul = $("rides"); ul.replaceChildren();
      rides.forEach((r, i) => {
        const li = el("li", { class: "ride" });
        const b = el("button", {}, `${local(r.start)} · ${duration((Date.parse(r.end) - Date.parse(r.start)) / 1000)} · ${(r.distance_m / 1000).toFixed(2)} km`);
        b.onclick = () => selectRide(r); li.appendChild(b); ul.appendChild(li);
      });
      if (rides.length) await selectRide(rides[rides.length - 1]); else { state.track = []; draw(); }
    }
    async function selectRide(ride) {
      state.ride = ride; state.track = [];
      const to = new Date(Date.parse(ride.end) + 1).toISOString();
      let cursor = null;
      do {
        const page = await api(`/api/devices/${encodeURIComponent(state.device)}/positions?limit=10000&from=${encodeURIComponent(ride.start)}&to=${encodeURIComponent(to)}` + (cursor ? `&cursor=${cursor}` : ""));
        state.track.push(...page.positions); cursor = page.next_cursor;
      } while (cursor);
      $("ride-info").textContent = `${state.track.length} points from ${local(ride.start)} to ${local(ride.end)}`;
      $("playback").max = String(Math.max(0, state.track.length - 1)); $("playback").value = "0";
      draw();
    }
    // The stream URL carries a single-use ticket, never the token (URLs end up in logs and history). When
    // the stream ends (the server dropped a lagging listener, or restarted), fetch a new ticket and reconnect.
    async function follow() {
      if (state.live) state.live.close();
      let ticket;
      try {
        const r = await fetch("/api/stream/ticket", { method: "POST", headers: { Authorization: "Bearer " + token() } });
        if (!r.ok) throw new Error("stream ticket: HTTP " + r.status);
        ticket = (await r.json()).ticket;
      } catch (e) { $("status").textContent = String(e.message || e); setTimeout(follow, 5000); return; }
      state.live = new EventSource("/api/stream?ticket=" + encodeURIComponent(ticket));
      state.live.onerror = () => { $("status").textContent = "reconnecting…"; state.live.close(); state.live = null; setTimeout(follow, 2000); };
      state.live.addEventListener("position", (m) => {
        const list = JSON.parse(m.data).positions; if (!list.length) return;
        const d = state.devices.find(d => d.id === list[0].device_id);
        if (d) { d.last = list[list.length - 1]; renderDevices(); }
        if (state.device === list[0].device_id && state.ride && state.ride === state.latestRide) {
          state.track.push(...list); $("playback").max = String(state.track.length - 1);
        }
        draw();
      });
      state.live.addEventListener("fence", (m) => { state.events.push(JSON.parse(m.data)); renderEvents(); });
      state.live.onopen = () => { $("status").textContent = "live"; };
    }
    async function connect() {
      try {
        $("status").textContent = "loading…";
        state.devices = (await api("/api/devices")).devices;
        state.fences = await allFences();
        state.events = (await api("/api/events?limit=1000")).events;
        renderDevices(); renderEvents();
        // The latest ride: that of the device heard from last.
        const latest = state.devices.filter(d => d.last).sort((a, b) => Date.parse(b.last.timestamp) - Date.parse(a.last.timestamp))[0];
        const wanted = params.get("device") || (latest || state.devices[0] || {}).id;
        if (wanted) { await selectDevice(wanted); state.latestRide = state.ride; }
        $("status").textContent = "connected";
        if (params.get("live") !== "0") follow();
        document.body.setAttribute("data-ready", "1");
      } catch (e) { $("status").textContent = String(e.message || e); }
    }
    $("login").onsubmit = (ev) => { ev.preventDefault(); sessionStorage.setItem("waymark.token", $("token").value); connect(); };
    if (token()) connect();
    </script>
    </body></html>
    """
}

extension DashboardPage {
    /// The Content-Security-Policy the page is served with: nothing may load or run but the page's own
    /// inline `<style>` and `<script>`, allowed by their SHA-256 hashes (computed from ``html`` once, so
    /// an edit of the page cannot leave a stale hash behind), and `fetch`/`EventSource` to this origin.
    /// The map is inline SVG: images may come only from the basemap's tile host (`img-src 'none'` without one); the login form is only
    /// ever handled by the script, so it may submit nowhere (`form-action 'none'`); no page may frame the
    /// dashboard (`frame-ancestors 'none'`) and no `<base>` may redirect its relative URLs (`base-uri 'none'`).
    static func contentSecurityPolicy(tiles: String?) -> String {
        let images = tiles.flatMap(tileSource) ?? "'none'"
        return ["default-src 'none'", "script-src \(scriptHashes)", "style-src \(styleHashes)", "connect-src 'self'",
                "img-src \(images)", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].joined(separator: "; ")
    }

    private static let styleHashes = inlineElements("style", in: html).map(hashSource).joined(separator: " ")
    private static let scriptHashes = inlineElements("script", in: html).map(hashSource).joined(separator: " ")

    /// The CSP source of a tile template's host: `https://tile.example.org`, or `https://*.tile.example.org`
    /// for a `{s}` subdomain; nil for a template ``checkedTiles(_:)`` refuses.
    static func tileSource(_ template: String) -> String? {
        guard (try? checkedTiles(template)) != nil, let schemeEnd = template.range(of: "://") else { return nil }
        let rest = template[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        return String(template[..<schemeEnd.upperBound]) + authority.replacingOccurrences(of: "{s}", with: "*")
    }

    /// `template` when it is a usable tile URL template: `http` or `https`, a host, and `{z}`, `{x}` and
    /// `{y}` (`{s}` allowed only as the first label of the host).
    /// - throws: ``ServerError`` ``ServerError/Code/configuration`` naming what is wrong.
    public static func checkedTiles(_ template: String) throws -> String {
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            throw ServerError(.configuration, "the tile template '\(template)' has no \(placeholder); expected e.g. https://tile.example.org/{z}/{x}/{y}.png")
        }
        let sample = template.replacingOccurrences(of: "{z}", with: "1").replacingOccurrences(of: "{x}", with: "1")
            .replacingOccurrences(of: "{y}", with: "1").replacingOccurrences(of: "{s}.", with: "a.")
        guard let url = URL(string: sample), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, !template.contains("\""), !template.contains("'"), !template.contains(" "),
              !(template.replacingOccurrences(of: "://{s}.", with: "://").contains("{s}")) else {
            throw ServerError(.configuration, "the tile template '\(template)' is not an http(s) URL with a host; expected e.g. https://tile.example.org/{z}/{x}/{y}.png")
        }
        return template
    }

    /// The exact text inside each attribute-less `<tag>…</tag>` element of `page`, in order: what a
    /// browser hashes to check it against a CSP hash source.
    static func inlineElements(_ tag: String, in page: String) -> [Substring] {
        var texts: [Substring] = []
        var rest = page[...]
        while let open = rest.range(of: "<\(tag)>"), let close = rest[open.upperBound...].range(of: "</\(tag)>") {
            texts.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return texts
    }

    /// `'sha256-…'`: the CSP hash source of the text's UTF-8 bytes.
    static func hashSource(_ text: Substring) -> String {
        "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'"
    }
}
