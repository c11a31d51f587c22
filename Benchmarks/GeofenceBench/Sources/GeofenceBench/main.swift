// Geofencing benchmark: the spatial index against a linear scan of the same data, in one run.
// Prints medians (per query) for each and the ratio. Release builds only.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WaymarkEngine
import WaymarkGeo

let clock = ContinuousClock()
let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)

func nanoseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Resident memory of the process in bytes (Linux `/proc/self/statm`), 0 elsewhere.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func randomPoint(within meters: Double, _ rng: inout SplitMix64) -> Coordinate {
    // Uniform over a square `2·meters` wide centred on the origin.
    let map = LocalProjection(origin: origin)
    return map.coordinate(east: Double.random(in: -meters...meters, using: &rng),
                          north: Double.random(in: -meters...meters, using: &rng))
}

/// Times `body` once per element of `inputs`; returns per-call nanoseconds.
func timeEach<T>(_ inputs: [T], _ body: (T) -> Void) -> [Double] {
    inputs.map { input in
        let start = clock.now
        body(input)
        return nanoseconds(clock.now - start)
    }
}

var sink = 0.0

// MARK: K nearest of 1,000,000 fences

@MainActor func nearestBenchmark(count: Int, k: Int) {
    var rng = SplitMix64(seed: 1)
    // One million fences over a 300 km square (a country), radii 50–500 m.
    let circles = (0..<count).map { _ in (center: randomPoint(within: 150_000, &rng), radiusMeters: Double.random(in: 50...500, using: &rng)) }
    let before = residentBytes()
    let buildStart = clock.now
    var index = FenceIndex(bulk: circles)
    let buildSeconds = nanoseconds(clock.now - buildStart) / 1e9
    let rss = residentBytes() - before
    let queries = (0..<20_000).map { _ in randomPoint(within: 150_000, &rng) }
    var result: [FenceIndex.Neighbor] = []
    result.reserveCapacity(k + 1)
    _ = timeEach(queries.prefix(1000).map { $0 }) { q in index.nearest(to: q, count: k, into: &result); sink += result[0].boundaryDistance }
    let fast = timeEach(queries) { q in index.nearest(to: q, count: k, into: &result); sink += result[0].boundaryDistance }
    let slow = timeEach(Array(queries.prefix(100))) { q in index.linearNearest(to: q, count: k, into: &result); sink += result[0].boundaryDistance }
    // Incremental updates: remove and re-add 10,000 fences.
    var handles: [FenceIndex.Handle] = Array(0..<10_000).map { FenceIndex.Handle($0 * 97) }
    let removeTimes = timeEach(handles) { h in index.remove(h) }
    var added: [FenceIndex.Handle] = []
    let addTimes = timeEach(Array(circles.prefix(10_000))) { c in added.append(index.insert(center: c.center, radiusMeters: c.radiusMeters)) }
    handles = added
    let fastAfter = timeEach(Array(queries.prefix(5000))) { q in index.nearest(to: q, count: k, into: &result); sink += result[0].boundaryDistance }
    print(String(format: "nearest-%d of %d fences: index %.2f µs, linear scan %.1f µs, ratio %.0fx (after 10k removes+adds: %.2f µs)",
                 k, count, median(fast) / 1000, median(slow) / 1000, median(slow) / median(fast), median(fastAfter) / 1000))
    print(String(format: "  index build %.2f s (cells of %.4f°), memory %.1f bytes/fence (resident growth %.1f), insert %.0f ns, remove %.0f ns (medians)",
                 buildSeconds, index.cellDegrees, Double(index.memoryFootprintBytes) / Double(count), Double(rss) / Double(count),
                 median(addTimes), median(removeTimes)))
}

// MARK: one fix against 10,000 fences

/// The peer: the same decision (signed distance against the hysteresis thresholds) for every fence.
struct LinearEvaluator {
    var centers: [(lat: Double, lon: Double, r: Double)]
    var inside: [Bool]
    mutating func evaluate(_ fix: Fix) -> Int {
        let ky = Geodesy.meanEarthRadius * .pi / 180, kx = ky * cos(fix.coordinate.latitude * .pi / 180)
        var changes = 0
        for i in centers.indices {
            let dx = (centers[i].lon - fix.coordinate.longitude) * kx, dy = (centers[i].lat - fix.coordinate.latitude) * ky
            let s = (dx * dx + dy * dy).squareRoot() - centers[i].r
            if !inside[i], s <= -10 { inside[i] = true; changes += 1 } else if inside[i], s >= 20 { inside[i] = false; changes += 1 }
        }
        return changes
    }
}

@MainActor func evaluationBenchmark(count: Int) throws {
    var rng = SplitMix64(seed: 2)
    // 10,000 fences over a 20 km square (a city), radii 100–500 m.
    let fences = (0..<count).map { i in
        Fence(id: "f\(i)", shape: .circle(center: randomPoint(within: 10_000, &rng), radiusMeters: Double.random(in: 100...500, using: &rng)))
    }
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    // A ride across the city at 8 m/s, one fix per second, with 5 m of noise.
    let map = LocalProjection(origin: origin)
    let fixes = (0..<2400).map { i -> Fix in
        let x = -9000 + Double(i) * 8
        return Fix(coordinate: map.coordinate(east: x + rng.gaussian(sigma: 3), north: 0.3 * x + rng.gaussian(sigma: 3)),
                   horizontalAccuracy: 5, timestamp: t0.addingTimeInterval(Double(i)), source: .gnss)
    }
    var monitor = GeofenceMonitor()
    _ = try monitor.add(fences, at: t0)
    var events = 0
    let fast = timeEach(fixes) { fix in
        let out = monitor.handle(.locations([fix]), at: fix.timestamp)
        events += out.updates.count
    }
    var peer = LinearEvaluator(centers: fences.map {
        guard case .circle(let c, let r) = $0.shape else { fatalError() }
        return (c.latitude, c.longitude, r)
    }, inside: Array(repeating: false, count: count))
    let slow = timeEach(fixes) { fix in events += peer.evaluate(fix) }
    print(String(format: "one fix against %d fences: monitor %.2f µs, linear scan %.2f µs, ratio %.1fx (%d updates)",
                 count, median(fast) / 1000, median(slow) / 1000, median(slow) / median(fast), events))
}

nearestBenchmark(count: 1_000_000, k: 20)
try evaluationBenchmark(count: 10_000)
if sink == 42 { print("") }
