import Foundation
import WaymarkGeo
import WaymarkServer

/// The synthetic workload of `waymark-bench`: the same points for the HTTP load generator and
/// for the direct store benchmark, and the same fences for the server and for PostGIS.
///
/// Device `d` drives back and forth on a line near its own start point; point `n` of the device
/// is `n × 100 ms` after ``epochMillis``, so every point is unique per device. Deterministic.
struct BenchWorkload: Sendable {
    /// The first point's time: 20 days ago, rounded to the second.
    let epochMillis: Int64
    /// Points per batch.
    let batch: Int

    init(batch: Int, now: Date = Date()) {
        self.batch = batch
        self.epochMillis = (Int64(now.timeIntervalSince1970) - 20 * 86_400) * 1000
    }

    /// The region every device and fence lies in (about 170 × 190 km).
    static let region = (minLat: 45.5, maxLat: 47.0, minLon: 13.5, maxLon: 16.0)

    /// Where point `i` of a batch of device `device` is (the same in every batch of that device).
    func coordinate(device: Int, index i: Int) -> Coordinate {
        var rng = SplitMix64(seed: UInt64(device) &* 7919 &+ 1)
        let r = Self.region
        let lat0 = r.minLat + 0.1 + Double.random(in: 0..<1, using: &rng) * (r.maxLat - r.minLat - 0.2)
        let lon0 = r.minLon + 0.1 + Double.random(in: 0..<1, using: &rng) * (r.maxLon - r.minLon - 0.2)
        let step = 0.00005 * Double(i)   // ~5 m per point
        return Coordinate(uncheckedLatitude: lat0 + step * 0.6, longitude: lon0 + step)
    }

    /// The time of the device's point number `n` (counting across batches), in ms since 1970.
    func millis(_ n: Int) -> Int64 { epochMillis + Int64(n) * 100 }

    /// The positions of batch `k` of `device`: what the server stores for the HTTP body.
    func positions(device: Int, deviceID: String, batchIndex k: Int) -> [Position] {
        (0..<batch).map { i in
            let fix = Fix(coordinate: coordinate(device: device, index: i), altitude: 300.5, horizontalAccuracy: 5,
                          verticalAccuracy: 3, speed: 4.2, course: 90,
                          timestamp: Date(timeIntervalSince1970: Double(millis(k * batch + i)) / 1000), source: .fused)
            return Position(deviceID: deviceID, fix: fix, batteryLevel: 0.81, isCharging: false, activity: "driving")
        }
    }

    /// `count` circular fences of 50–300 m radius spread over ``region``, ids `bf-0…`.
    static func fences(count: Int, seed: UInt64 = 42) -> [ServerFence] {
        var rng = SplitMix64(seed: seed)
        let r = region
        return (0..<count).map { i in
            let center = Coordinate(uncheckedLatitude: Double.random(in: r.minLat...r.maxLat, using: &rng),
                                    longitude: Double.random(in: r.minLon...r.maxLon, using: &rng))
            return ServerFence(id: "bf-\(i)", name: "bench \(i)",
                         shape: .circle(center: center, radiusMeters: Double.random(in: 50...300, using: &rng)))
        }
    }
}

/// A native batch body with fixed-width timestamp slots rewritten in place for each batch, so the
/// load generator spends microseconds, not milliseconds, per request.
struct BatchTemplate: Sendable {
    private(set) var bytes: [UInt8]
    private var slots: [Int] = []

    /// The body of batch 0 of `device`; the properties match ``BenchWorkload/positions(device:deviceID:batchIndex:)``.
    init(workload: BenchWorkload, device: Int) {
        var text = #"{"locations":["#
        var offsets: [Int] = []
        for i in 0..<workload.batch {
            let c = workload.coordinate(device: device, index: i)
            if i > 0 { text += "," }
            text += #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
            text += "\(c.longitude),\(c.latitude)" + #"]},"properties":{"timestamp":""#
            offsets.append(text.utf8.count)
            text += "0000-00-00T00:00:00.000Z"
            text += #"","altitude":300.5,"speed":4.2,"course":90,"horizontal_accuracy":5,"vertical_accuracy":3,"#
            text += #""battery_level":0.81,"battery_state":"unplugged","motion":["driving"]}}"#
        }
        text += "]}"
        bytes = Array(text.utf8)
        slots = offsets
        self.workload = workload
    }

    private let workload: BenchWorkload

    /// Rewrites the timestamps for batch `k` and returns the body.
    mutating func body(batchIndex k: Int) -> [UInt8] {
        for (i, offset) in slots.enumerated() {
            UTCMillisecondTimestamp.write(millis: workload.millis(k * workload.batch + i), into: &bytes, at: offset)
        }
        return bytes
    }
}
