import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The engine against a plain reference: every fence tested on every segment with `ServerFence.contains`
/// and `SegmentCrossing.crossing`, no index, no boxes, no precomputed cosines. The engine's fast paths
/// (grid cells, box rejection, the merged inside list) must never change an event.
@Suite("Fence engine against a brute-force reference")
struct FenceEngineReferenceTests {
    /// The engine's documented rules, written the simplest way.
    static func reference(_ fences: [ServerFence], _ positions: [Position], state: inout DeviceFenceState) -> [ServerFenceEvent] {
        var events: [ServerFenceEvent] = []
        for p in positions.sorted(by: { $0.fix.timestamp < $1.fix.timestamp }) {
            if let last = state.lastTimestamp, p.fix.timestamp <= last { continue }
            let here = p.fix.coordinate, now = p.fix.timestamp
            for fence in fences {
                let wasInside = state.inside[fence.id] != nil
                let isInside = fence.contains(here)
                func event(_ kind: ServerFenceEvent.Kind, _ at: Date, _ place: Coordinate) {
                    events.append(ServerFenceEvent(deviceID: p.deviceID, fenceID: fence.id, kind: kind, timestamp: at, coordinate: place))
                }
                if isInside, !wasInside {
                    event(.enter, now, here)
                    state.inside[fence.id] = now
                } else if !isInside, wasInside {
                    event(.exit, now, here)
                    state.inside[fence.id] = nil
                    state.dwelled.remove(fence.id)
                } else if !isInside, let from = state.lastCoordinate, let then = state.lastTimestamp,
                          // A jump faster than any vehicle is a gap: nothing is interpolated along it.
                          Geodesy.haversineDistance(from, here)
                            <= FenceEngine.jumpAllowanceMeters + FenceEngine.maximumPlausibleSpeed * now.timeIntervalSince(then),
                          let crossing = SegmentCrossing.crossing(fence, from: from, to: here) {
                    for (kind, t) in [(ServerFenceEvent.Kind.enter, crossing.enter), (.exit, crossing.exit)] {
                        let lat = from.latitude + (here.latitude - from.latitude) * t
                        let lon = Coordinate.normalizedLongitude(from.longitude + remainder(here.longitude - from.longitude, 360) * t)
                        event(kind, then.addingTimeInterval(now.timeIntervalSince(then) * t), Coordinate(uncheckedLatitude: lat, longitude: lon))
                    }
                }
                if isInside, let dwell = fence.dwellSeconds, let since = state.inside[fence.id],
                   !state.dwelled.contains(fence.id), now.timeIntervalSince(since) >= dwell {
                    event(.dwell, now, here)
                    state.dwelled.insert(fence.id)
                }
            }
            state.lastTimestamp = now
            state.lastCoordinate = here
        }
        return events
    }

    /// Circles (tiny to huge, some with dwell) and polygons (some with holes) around `center`.
    static func fences(around center: (lat: Double, lon: Double), spread: Double, count: Int,
                       rng: inout SplitMix64) throws -> [ServerFence] {
        try (0..<count).map { i -> ServerFence in
            let lat = max(-89.9, min(89.9, center.lat + Double.random(in: -spread...spread, using: &rng)))
            let lon = Coordinate.normalizedLongitude(center.lon + Double.random(in: -spread...spread, using: &rng))
            let dwell: Double? = i % 4 == 0 ? Double.random(in: 5...120, using: &rng) : nil
            if i % 3 == 2 {
                let r = Double.random(in: 0.0005...(spread / 3), using: &rng)
                let square = [(-r, -r), (-r, r), (r, r), (r, -r)].map {
                    Coordinate(uncheckedLatitude: max(-89.95, min(89.95, lat + $0.0)), longitude: Coordinate.normalizedLongitude(lon + $0.1))
                }
                let hole = i % 2 == 0 ? [[(-r / 3, -r / 3), (-r / 3, r / 3), (r / 3, r / 3)].map {
                    Coordinate(uncheckedLatitude: lat + $0.0, longitude: Coordinate.normalizedLongitude(lon + $0.1))
                }] : []
                return ServerFence(id: "p\(i)", name: "", shape: .polygon(try Polygon(exterior: square, holes: hole)), dwellSeconds: dwell)
            }
            let radius = i % 17 == 0 ? Double.random(in: 5_000...60_000, using: &rng) : Double.random(in: 1...spread * 40_000, using: &rng)
            return ServerFence(id: "c\(i)", name: "", shape: .circle(center: Coordinate(uncheckedLatitude: lat, longitude: lon),
                                                                radiusMeters: radius), dwellSeconds: dwell)
        }
    }

    /// A wandering walk with occasional long jumps, delivered in shuffled batches with late points.
    static func batches(around center: (lat: Double, lon: Double), spread: Double, rng: inout SplitMix64) -> [[Position]] {
        var lat = center.lat, lon = center.lon
        var walk: [Position] = []
        var time = 1_750_000_000.0
        for _ in 0..<400 {
            let jump = Double.random(in: 0..<1, using: &rng) < 0.05
            let step = jump ? spread : spread / 40
            // Half the long jumps take long enough to be travelled (crossings along them count); the others are
            // faster than any vehicle (gaps). Short steps take long enough for their length (120 s for 0.05°).
            time += jump && Bool.random(using: &rng) ? 3_000 : 3 * max(1, spread * 20)
            lat = max(-89.99, min(89.99, lat + Double.random(in: -step...step, using: &rng)))
            lon = Coordinate.normalizedLongitude(lon + Double.random(in: -step...step, using: &rng))
            walk.append(Position(deviceID: "d", fix: Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                                                          timestamp: Date(timeIntervalSince1970: time))))
        }
        var batches: [[Position]] = []
        var k = 0
        while k < walk.count {
            let size = Int.random(in: 1...60, using: &rng)
            var batch = Array(walk[k..<min(k + size, walk.count)])
            if Bool.random(using: &rng) { batch.shuffle(using: &rng) }
            if k > 10, Int.random(in: 0..<5, using: &rng) == 0 { batch.append(walk[k - 5]) }  // a late point
            batches.append(batch)
            k += size
        }
        return batches
    }

    @Test("same events and state as the reference", arguments: [
        (lat: 46.05, lon: 14.5, spread: 0.05),       // a city
        (lat: 0.0, lon: 179.95, spread: 0.2),        // across the antimeridian
        (lat: 89.7, lon: 0.0, spread: 0.3),          // next to the pole: circles over it
        (lat: -33.9, lon: 151.2, spread: 2.0),       // a big area, big jumps over many cells
    ])
    func matchesReference(area: (lat: Double, lon: Double, spread: Double)) throws {
        for seed in 1...6 {
            var rng = SplitMix64(seed: UInt64(seed) &* 1_000_003)
            let fences = try Self.fences(around: (area.lat, area.lon), spread: area.spread, count: 300, rng: &rng)
            let engine = FenceEngine(fences: fences)
            var fast = DeviceFenceState(), slow = DeviceFenceState()
            var total = 0
            for batch in Self.batches(around: (area.lat, area.lon), spread: area.spread, rng: &rng) {
                let expected = Self.reference(fences, batch, state: &slow)
                let got = engine.evaluate(batch, state: &fast)
                // Same events, in the same order (by point, then fence order).
                #expect(got == expected, "seed \(seed) at \(area)")
                #expect(fast == slow)
                total += got.count
                if got != expected { return }
            }
            #expect(total > 20, "seed \(seed) at \(area): the walk should cross fences (\(total) events)")
        }
    }

    @Test("fenceIDs(containing:) equals testing every fence", arguments: [(46.05, 14.5, 0.05), (0.0, -179.99, 0.2), (-89.8, 90.0, 0.3)])
    func containsMatchesReference(lat: Double, lon: Double, spread: Double) throws {
        var rng = SplitMix64(seed: 99)
        let fences = try Self.fences(around: (lat, lon), spread: spread, count: 500, rng: &rng)
        let engine = FenceEngine(fences: fences)
        var hits = 0
        for _ in 0..<3000 {
            let point = Coordinate(uncheckedLatitude: max(-90, min(90, lat + Double.random(in: -spread...spread, using: &rng))),
                                   longitude: Coordinate.normalizedLongitude(lon + Double.random(in: -spread...spread, using: &rng)))
            let expected = fences.filter { $0.contains(point) }.map(\.id)
            #expect(engine.fenceIDs(containing: point) == expected)
            hits += expected.count
        }
        #expect(hits > 100)
    }

    @Test("a point just inside a circle's widest longitude is inside (the box is not narrower than the circle)")
    func boxHoldsCircle() {
        for lat in [0.0, 45, 70, 85, 89] {
            let center = Coordinate(uncheckedLatitude: lat, longitude: 10)
            let fence = ServerFence(id: "c", name: "", shape: .circle(center: center, radiusMeters: 50_000))
            let engine = FenceEngine(fences: [fence])
            // Walk east along the latitude of the widest point until the circle no longer contains it.
            let angle = 50_000 / Geodesy.meanEarthRadius
            let widestLatitude = asin(sin(lat * .pi / 180) / cos(angle)) * 180 / .pi
            var lon = 10.0, step = 0.5
            while step > 1e-12 {
                let probe = Coordinate(uncheckedLatitude: widestLatitude, longitude: lon + step)
                if fence.contains(probe) { lon += step } else { step /= 2 }
            }
            let edge = Coordinate(uncheckedLatitude: widestLatitude, longitude: lon)
            #expect(fence.contains(edge))
            #expect(engine.fenceIDs(containing: edge) == ["c"], "latitude \(lat)")
        }
    }
}
