import Crypto
import Foundation
import WaymarkGeo

/// The dashboard served at `GET /`: one HTML page with its own CSS and JavaScript inline, and the map
/// library it draws with (Leaflet, vendored in `Dashboard/Leaflet`) served by this server too, under
/// `contentSecurityPolicy(tiles:)`. Nothing comes from another origin but the basemap's tiles.
///
/// The operator types the admin token into the page (kept in `sessionStorage` for the tab; a
/// `#token=…` fragment, which browsers never send to the server, is accepted too: `waymark demo` prints
/// such a link). The map fills the window beside the lists and pans and zooms (drag, wheel, keys,
/// buttons). It opens on every device's last position and the latest ride and draws: the fences in view,
/// named; the selected ride; the selected device's fence events (decided by the server) and the records
/// its client sent with a place (an OwnTracks transition, an Overland visit); over the operator's basemap
/// (``ServerConfiguration/tileURLTemplate``, fetched by the browser) or a plain background. The side
/// lists devices, rides (start in the browser's time zone, duration, distance) and events; a slider and
/// a play button replay the selected ride; `/api/stream` keeps it all live.
public enum DashboardPage {
    /// The page with the tile template in its `waymark-tiles` meta element (empty: the plain map) and the
    /// tiles' credit in `waymark-tiles-attribution` (plain text, shown as such).
    static func page(tiles: String?, attribution: String? = nil) -> String {
        html.replacingOccurrences(of: tilesPlaceholder, with: GPXWriter.escape(tiles ?? "", attribute: true))
            .replacingOccurrences(of: attributionPlaceholder, with: GPXWriter.escape(tiles == nil ? "" : attribution ?? "", attribute: true))
    }

    static let tilesPlaceholder = "__WAYMARK_TILES__"
    static let attributionPlaceholder = "__WAYMARK_TILES_ATTRIBUTION__"

    /// ``template`` with the map library's path and integrity values filled in.
    static let html = template
        .replacingOccurrences(of: "__LEAFLET__", with: DashboardAssets.pathPrefix)
        .replacingOccurrences(of: "__LEAFLET_JS_SRI__", with: DashboardAssets.integrity(of: "leaflet.js"))
        .replacingOccurrences(of: "__LEAFLET_CSS_SRI__", with: DashboardAssets.integrity(of: "leaflet.css"))

    private static let template = #"""
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
    <title>Waymark</title>
    <meta name="waymark-tiles" content="__WAYMARK_TILES__">
    <meta name="waymark-tiles-attribution" content="__WAYMARK_TILES_ATTRIBUTION__">
    <link rel="stylesheet" href="__LEAFLET__leaflet.css" integrity="__LEAFLET_CSS_SRI__">
    <style>
    html,body{height:100%;margin:0}
    body{font:14px system-ui,sans-serif;color:#222;display:flex;flex-direction:column}
    header{display:flex;gap:1em;align-items:center;padding:.5em 1em;background:#234;color:#fff;flex:none}
    header h1{font-size:1.2em;margin:0}
    main{display:flex;flex:1;min-height:0}
    aside{width:22em;flex:none;overflow-y:auto;padding:0 1em 1em;border-right:1px solid #ccc}
    aside h2{font-size:1em;margin:.8em 0 .3em}
    ul,ol{margin:0;padding-left:1.2em}
    li.selected{font-weight:bold}
    li button{all:unset;cursor:pointer;text-decoration:underline;vertical-align:top}
    #view{flex:1;display:flex;flex-direction:column;min-width:0}
    #map{flex:1;background:#eef1f4}
    #status{font-size:.9em;opacity:.8}
    #player{display:flex;gap:.5em;align-items:center;padding:.4em 1em;border-top:1px solid #ccc;flex:none}
    #playback{flex:1;min-width:8em}
    #ride-info{margin:0;font-size:.9em}
    body[data-ready] #login{display:none}
    li.ride{list-style:none;margin-left:-1.2em}
    .legend{font-size:.85em;opacity:.85}
    .legend i{display:inline-block;width:.7em;height:.7em;border-radius:50%;margin:0 .25em 0 .6em;border:1px solid #333}
    .legend i.fence-event{background:#07a}
    .legend i.device-event{background:#fc3}
    .leaflet-tooltip.fence-label{background:rgba(255,255,255,.7);border:0;box-shadow:none;padding:0 3px;color:#14508f;font-size:11px}
    .leaflet-tooltip.device-label{font-weight:bold;color:#114;padding:1px 4px}
    </style></head>
    <body>
    <header><h1>Waymark</h1>
    <form id="login"><input id="token" type="password" placeholder="admin token" autocomplete="off"> <button>Connect</button></form>
    <span id="status">not connected</span></header>
    <main>
    <aside>
    <h2>Devices</h2><ul id="devices"></ul>
    <h2>Rides (last two days)</h2><ul id="rides"></ul>
    <h2>Events</h2><p class="legend">on the map:<i class="fence-event"></i>fence (server)<i class="device-event"></i>sent by the device</p>
    <ol id="events" reversed></ol>
    </aside>
    <section id="view">
    <div id="map"></div>
    <div id="player"><button id="play" type="button">Play</button><input id="playback" type="range" min="0" max="0" value="0"><span id="playtime"></span>
    <button id="fit" type="button">Show all</button><p id="ride-info"></p></div>
    </section>
    </main>
    <script src="__LEAFLET__leaflet.js" integrity="__LEAFLET_JS_SRI__"></script>
    <script>
    "use strict";
    const state = { devices: [], fences: [], events: [], deviceEvents: [], deviceEventsAfter: 0, device: null, ride: null,
                    latestRide: null, track: [], live: null, timer: null };
    const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";
    const TILES = meta("waymark-tiles"), CREDIT = meta("waymark-tiles-attribution");
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
    // GET /api/devices is paged: follow `next_after` (null on the last page) until every device is loaded.
    async function allDevices() {
      const devices = []; let after = null;
      do {
        const page = await api("/api/devices?limit=1000" + (after === null ? "" : "&after=" + encodeURIComponent(after)));
        devices.push(...page.devices); after = typeof page.next_after === "string" ? page.next_after : null;
      } while (after !== null);
      return devices;
    }
    // A device's records without a position of their own, oldest first, from `after` on (at most 20 pages).
    async function deviceEventsOf(id, after) {
      const list = [];
      for (let page = 0; page < 20; page++) {
        const r = await api(`/api/devices/${encodeURIComponent(id)}/device-events?limit=1000&after=${after}`);
        list.push(...r.device_events);
        if (r.next_after === null || r.next_after === undefined) break;
        after = r.next_after;
      }
      return list;
    }
    function el(tag, attrs, text) {
      const e = document.createElement(tag);
      for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
      if (text !== undefined) e.textContent = text;
      return e;
    }
    // Sets data attributes on a Leaflet layer's element (and its tooltip's): what the page's tests find.
    function mark(layer, attrs) {
      for (const target of [layer.getElement && layer.getElement(), layer.getTooltip() && layer.getTooltip().getElement()]) {
        if (target) for (const k in attrs) target.setAttribute(k, attrs[k]);
      }
    }

    // The map: Web Mercator, north up. It pans with a drag or the arrow keys and zooms with the wheel, a double
    // click, a pinch, +/- or its buttons. Each kind of layer has its own pane, so a redraw keeps the stacking.
    const map = L.map("map", { worldCopyJump: true, minZoom: 1, maxZoom: 20 }).setView([20, 0], 2);
    map.attributionControl.setPrefix('<a href="__LEAFLET__LICENSE.txt">Leaflet</a>');
    L.control.scale({ imperial: false }).addTo(map);
    [["fences", 405], ["track", 410], ["events", 420], ["devices", 430], ["head", 440]]
      .forEach(([name, z]) => { map.createPane(name).style.zIndex = String(z); });
    // The basemap. Leaflet cancels a dropped tile's download by pointing it at a data: image, which the page's
    // img-src (the tile host alone) refuses; removing its src cancels it as well and loads nothing.
    const TileLayer = L.TileLayer.extend({
      _removeTile(key) {
        const tile = this._tiles[key];
        if (tile) tile.el.removeAttribute("src");
        return L.GridLayer.prototype._removeTile.call(this, key);
      },
      _abortLoading() {
        for (const key of Object.keys(this._tiles)) {
          const tile = this._tiles[key];
          if (tile.coords.z !== this._tileZoom && !tile.el.complete) this._removeTile(key);
        }
      },
    });
    // Leaflet shows a layer's attribution as HTML: the operator's credit is text, so it is escaped first.
    const text = (s) => s.replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
    if (TILES) new TileLayer(TILES, { maxZoom: 20, maxNativeZoom: 19, subdomains: "abc", className: "basemap", attribution: text(CREDIT) }).addTo(map);
    const fenceLayer = L.layerGroup().addTo(map), eventLayer = L.layerGroup().addTo(map), deviceLayer = L.layerGroup().addTo(map);
    const track = L.polyline([], { pane: "track", className: "track", color: "#d33", weight: 3, opacity: .9,
                                   smoothFactor: 0, interactive: false }).addTo(map);
    const markers = new Map();
    let head = null, lastPoint = null;

    // Fences: their bounds computed once; those in view (and a margin) drawn after every move, named when
    // few enough to read. A server with tens of thousands of fences stays fluid.
    const FENCES_DRAWN = 1500, FENCES_NAMED = 250;
    function prepareFence(f) {
      const g = f.geometry;
      if (g.type === "Point") {
        f.circle = [g.coordinates[1], g.coordinates[0]];
        f.bounds = L.latLng(f.circle).toBounds(2 * f.properties.radiusMeters);
      } else {
        f.rings = g.coordinates.map(ring => ring.map(c => [c[1], c[0]]));
        f.bounds = L.latLngBounds(f.rings[0]);
      }
    }
    function drawFences() {
      fenceLayer.clearLayers();
      const view = map.getBounds().pad(0.25), shown = [];
      for (const f of state.fences) {
        if (view.intersects(f.bounds)) shown.push(f);
        if (shown.length === FENCES_DRAWN) break;
      }
      for (const f of shown) {
        const style = { pane: "fences", className: "fence", color: "#1e78dc", weight: 1.5, fillOpacity: .15 };
        const layer = f.circle ? L.circle(f.circle, Object.assign({ radius: f.properties.radiusMeters }, style)) : L.polygon(f.rings, style);
        layer.bindTooltip(f.properties.name, shown.length <= FENCES_NAMED ? { permanent: true, direction: "center", className: "fence-label" }
                                                                           : { direction: "center", className: "fence-label" });
        layer.addTo(fenceLayer);
        mark(layer, { "data-id": f.id });
      }
      $("map").setAttribute("data-fences", String(shown.length));
    }
    map.on("moveend", drawFences);

    // Every device at its last position, named; the selected one larger and orange. A click selects it.
    function drawDevices() {
      deviceLayer.clearLayers(); markers.clear();
      const located = state.devices.filter(d => d.last);
      for (const d of located) {
        const selected = d.id === state.device;
        const m = L.circleMarker([d.last.lat, d.last.lon], { pane: "devices", className: "device", radius: selected ? 8 : 6, color: "#fff",
                                                             weight: 2, fillColor: selected ? "#e07a10" : "#2a7", fillOpacity: 1 });
        m.bindTooltip(d.name, { permanent: located.length <= 200, direction: "right", offset: [8, 0], className: "device-label" });
        m.on("click", () => selectDevice(d.id));
        m.addTo(deviceLayer);
        mark(m, { "data-device": d.id });
        markers.set(d.id, m);
      }
    }
    // The selected ride, its last point, and the replay's head on the point the slider picks.
    function drawRide() {
      track.setLatLngs(state.track.map(p => [p.lat, p.lon]));
      mark(track, { "data-points": String(state.track.length) });
      if (lastPoint) lastPoint.remove();
      if (head) head.remove();
      lastPoint = head = null;
      if (state.track.length) {
        const p = state.track[state.track.length - 1];
        lastPoint = L.circleMarker([p.lat, p.lon], { pane: "track", className: "last-point", radius: 5, color: "#d33", fillOpacity: 1, interactive: false }).addTo(map);
        head = L.circleMarker([state.track[0].lat, state.track[0].lon], { pane: "head", className: "playhead", radius: 7, color: "#d33", weight: 3,
                                                                           fillColor: "#fff", fillOpacity: 1, interactive: false }).addTo(map);
        moveHead();
      }
      drawEvents();
    }
    // The view that shows the ride and every device (or, with neither, the fences).
    function fit(rideOnly) {
      const points = state.track.map(p => [p.lat, p.lon]);
      if (!rideOnly || !points.length) points.push(...state.devices.filter(d => d.last).map(d => [d.last.lat, d.last.lon]));
      let bounds = points.length ? L.latLngBounds(points) : null;
      if (!bounds && state.fences.length) bounds = state.fences.slice(0, 1000).reduce((b, f) => b.extend(f.bounds), L.latLngBounds([]));
      if (bounds && bounds.isValid()) map.fitBounds(bounds, { padding: [30, 30], maxZoom: 17, animate: false });
      drawFences();
    }
    $("fit").onclick = () => fit(false);

    // Events: the server's fence events (every device) and the selected device's own records, in one
    // timeline. Those of the selected device during the selected ride are drawn where they happened.
    const fenceName = (id) => (state.fences.find(f => f.id === id) || { properties: { name: id } }).properties.name;
    const deviceName = (id) => (state.devices.find(d => d.id === id) || { name: id }).name;
    function fenceEvent(e) {
      return { key: "fence-" + e.id, source: "fence", device: e.device_id, at: Date.parse(e.timestamp), kind: e.kind,
               what: fenceName(e.fence_id), place: [e.lat, e.lon] };
    }
    // A record has a place when its client sent one: OwnTracks' lat/lon, a GeoJSON geometry (Overland).
    // 0, 0 is OwnTracks iOS's "no known location", not a place.
    function deviceEvent(e) {
      const d = e.detail && typeof e.detail === "object" ? e.detail : {};
      const c = d.geometry && Array.isArray(d.geometry.coordinates) ? d.geometry.coordinates : null;
      const usable = (lat, lon) => typeof lat === "number" && typeof lon === "number" && Math.abs(lat) <= 90 && Math.abs(lon) <= 180
                                   && (lat !== 0 || lon !== 0);
      const place = usable(d.lat, d.lon) ? [d.lat, d.lon] : usable(d.latitude, d.longitude) ? [d.latitude, d.longitude]
                  : c && usable(c[1], c[0]) ? [c[1], c[0]] : null;
      // A Waymark device's own geofence event: the fence by name, and what the device decided.
      if (e.kind === "waymark.fence_event") {
        return { key: "device-" + e.id, source: "device", device: e.device_id, at: Date.parse(e.time || e.received),
                 kind: `${d.event} (device)`, what: fenceName(d.fence_id), place };
      }
      const what = [d.event, d.desc].filter(v => typeof v === "string").join(" ");
      return { key: "device-" + e.id, source: "device", device: e.device_id, at: Date.parse(e.time || e.received), kind: e.kind, what, place };
    }
    const timeline = () => state.events.map(fenceEvent).concat(state.deviceEvents.map(deviceEvent)).sort((a, b) => a.at - b.at);
    function renderEvents() {
      const ol = $("events"); ol.replaceChildren();
      for (const e of timeline().slice(-50).reverse()) {
        const li = el("li", { "data-source": e.source });
        const text = `${local(e.at)} ${e.kind} ${e.what} (${deviceName(e.device)})`.replace("  ", " ");
        if (e.place) {
          const b = el("button", {}, text);
          b.onclick = () => map.setView(e.place, Math.max(map.getZoom(), 16));
          li.appendChild(b);
        } else li.textContent = text;
        ol.appendChild(li);
      }
    }
    function drawEvents() {
      eventLayer.clearLayers();
      const r = state.ride, from = r ? Date.parse(r.start) - 60000 : -Infinity;
      const to = !r ? Infinity : r === state.latestRide ? Infinity : Date.parse(r.end) + 60000;
      const shown = timeline().filter(e => e.device === state.device && e.place && e.at >= from && e.at <= to).slice(-500);
      for (const e of shown) {
        const colour = e.source === "device" ? "#fc3" : e.kind === "exit" ? "#c60" : e.kind === "dwell" ? "#85c" : "#07a";
        const m = L.circleMarker(e.place, { pane: "events", className: "event", radius: 6, color: "#333", weight: 1.5, fillColor: colour, fillOpacity: 1 });
        m.bindTooltip(`${local(e.at)} ${e.kind} ${e.what}`, { direction: "top", offset: [0, -6] });
        m.addTo(eventLayer);
        mark(m, { "data-event": e.key, "data-source": e.source, "data-kind": e.kind });
      }
    }

    // Replay: the slider picks a point of the ride; Play walks through it, keeping the head in view.
    function moveHead() {
      const i = Number($("playback").value), p = state.track[i];
      if (!head || !p) return;
      head.setLatLng([p.lat, p.lon]);
      mark(head, { "data-index": String(i) });
      $("playtime").textContent = local(p.timestamp);
      if (state.timer && !map.getBounds().contains(head.getLatLng())) map.panTo(head.getLatLng());
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
    async function selectDevice(id, initial) {
      state.device = id; renderDevices(); drawDevices();
      // The rides of the two days up to the device's last position: one bounded page, however long its history.
      const dev = state.devices.find(d => d.id === id);
      const since = dev && dev.last ? "?from=" + encodeURIComponent(new Date(Date.parse(dev.last.timestamp) - 2 * 86400000).toISOString()) : "";
      const rides = (await api(`/api/devices/${encodeURIComponent(id)}/rides${since}`)).rides;
      state.deviceEvents = await deviceEventsOf(id, 0);
      state.deviceEventsAfter = state.deviceEvents.length ? state.deviceEvents[state.deviceEvents.length - 1].id : 0;
      renderEvents();
      const ul = $("rides"); ul.replaceChildren();
      rides.forEach((r) => {
        const li = el("li", { class: "ride" });
        const b = el("button", {}, `${local(r.start)} · ${duration((Date.parse(r.end) - Date.parse(r.start)) / 1000)} · ${(r.distance_m / 1000).toFixed(2)} km`);
        b.onclick = () => selectRide(r, true); li.appendChild(b); ul.appendChild(li);
      });
      if (rides.length) await selectRide(rides[rides.length - 1], !initial);
      else { state.ride = null; state.track = []; drawRide(); if (!initial && dev && dev.last) map.setView([dev.last.lat, dev.last.lon], Math.max(map.getZoom(), 15)); }
    }
    async function selectRide(ride, fitView) {
      state.ride = ride; state.track = [];
      const to = new Date(Date.parse(ride.end) + 1).toISOString();
      let cursor = null;
      do {
        const page = await api(`/api/devices/${encodeURIComponent(state.device)}/positions?limit=10000&from=${encodeURIComponent(ride.start)}&to=${encodeURIComponent(to)}` + (cursor ? `&cursor=${cursor}` : ""));
        state.track.push(...page.positions); cursor = page.next_cursor;
      } while (cursor);
      $("ride-info").textContent = `${state.track.length} points from ${local(ride.start)} to ${local(ride.end)}`;
      $("playback").max = String(Math.max(0, state.track.length - 1)); $("playback").value = "0";
      drawRide();
      if (fitView) fit(true);
    }
    // The selected device's new records, fetched when it sends positions (at most every 5 s, the last
    // request of a burst included).
    let refreshing = false, refreshedAt = 0, refreshPending = false;
    async function refreshDeviceEvents() {
      const wait = 5000 - (Date.now() - refreshedAt);
      if (refreshing || wait > 0) {
        if (!refreshPending) { refreshPending = true; setTimeout(() => { refreshPending = false; refreshDeviceEvents(); }, Math.max(wait, 500)); }
        return;
      }
      const id = state.device;
      refreshing = true; refreshedAt = Date.now();
      try {
        const list = await deviceEventsOf(id, state.deviceEventsAfter);
        if (list.length && id === state.device) {
          state.deviceEvents.push(...list); state.deviceEventsAfter = list[list.length - 1].id;
          renderEvents(); drawEvents();
        }
      } catch (e) { $("status").textContent = String(e.message || e); }
      finally { refreshing = false; }
    }
    // The stream URL carries a single-use ticket, never the token (URLs end up in logs and history). When
    // the stream ends (the server dropped a lagging listener, or restarted), fetch a new ticket and reconnect.
    // Live updates move the devices and extend the latest ride; they never move the view the operator chose.
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
        if (d) {
          const known = !!d.last; d.last = list[list.length - 1]; renderDevices();
          if (known && markers.has(d.id)) markers.get(d.id).setLatLng([d.last.lat, d.last.lon]); else drawDevices();
        }
        if (state.device === list[0].device_id && state.ride && state.ride === state.latestRide) {
          state.track.push(...list); $("playback").max = String(state.track.length - 1);
          for (const p of list) track.addLatLng([p.lat, p.lon]);
          mark(track, { "data-points": String(state.track.length) });
          if (lastPoint) lastPoint.setLatLng([d.last.lat, d.last.lon]); else drawRide();
        }
        if (state.device === list[0].device_id) refreshDeviceEvents();
      });
      state.live.addEventListener("fence", (m) => { state.events.push(JSON.parse(m.data)); renderEvents(); drawEvents(); });
      state.live.onopen = () => { $("status").textContent = "live"; };
    }
    async function connect() {
      try {
        $("status").textContent = "loading…";
        state.devices = await allDevices();
        state.fences = await allFences();
        state.fences.forEach(prepareFence);
        state.events = (await api("/api/events?limit=10000")).events;
        renderDevices(); drawDevices();
        // The latest ride: that of the device heard from last.
        const latest = state.devices.filter(d => d.last).sort((a, b) => Date.parse(b.last.timestamp) - Date.parse(a.last.timestamp))[0];
        const wanted = params.get("device") || (latest || state.devices[0] || {}).id;
        if (wanted) { await selectDevice(wanted, true); state.latestRide = state.ride; drawEvents(); }
        renderEvents();
        fit(false);
        $("status").textContent = "connected";
        if (params.get("live") !== "0") follow();
        document.body.setAttribute("data-ready", "1");
      } catch (e) { $("status").textContent = String(e.message || e); }
    }
    $("login").onsubmit = (ev) => { ev.preventDefault(); sessionStorage.setItem("waymark.token", $("token").value); connect(); };
    if (token()) connect();
    </script>
    </body></html>
    """#
}

extension DashboardPage {
    /// The Content-Security-Policy the page is served with: nothing may load or run but the page's own
    /// inline `<style>` and `<script>`, allowed by their SHA-256 hashes (computed from ``html`` once, so
    /// an edit of the page cannot leave a stale hash behind), the map library's script and stylesheet from
    /// this origin (`'self'`: ``DashboardAssets``, loaded with Subresource Integrity; every other reply of
    /// this server is JSON, CSV, GPX or text sent with `nosniff`, which no browser runs as script), and
    /// `fetch`/`EventSource` to this origin. The map draws in SVG: images may come only from the basemap's
    /// tile host (`img-src 'none'` without one); the login form is only ever handled by the script, so it
    /// may submit nowhere (`form-action 'none'`); no page may frame the dashboard (`frame-ancestors 'none'`)
    /// and no `<base>` may redirect its relative URLs (`base-uri 'none'`).
    static func contentSecurityPolicy(tiles: String?) -> String {
        let images = tiles.flatMap(tileSource) ?? "'none'"
        return ["default-src 'none'", "script-src 'self' \(scriptHashes)", "style-src 'self' \(styleHashes)", "connect-src 'self'",
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
