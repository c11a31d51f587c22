import Foundation
import WaymarkGeo

/// What `gpx stats` reports: totals over every track, and each track.
struct GPXStatsSummary: Encodable {
    struct TrackSummary: Encodable {
        var name: String?
        var statistics: StatisticsJSON
    }

    var file: String
    var version: String?
    var tracks: [TrackSummary]
    var skippedPoints: Int
    var total: StatisticsJSON

    // The JSON puts the totals at the top level, so `jq .length2d` works.
    private enum CodingKeys: String, CodingKey { case file, version, tracks, skippedPoints }

    func encode(to encoder: any Encoder) throws {
        try total.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encodeIfPresent(version, forKey: .version)
        try c.encode(tracks, forKey: .tracks)
        try c.encode(skippedPoints, forKey: .skippedPoints)
    }

    /// A short human-readable report.
    func text() -> String {
        let s = total
        var lines: [String] = []
        let head = "\(file): GPX \(version ?? "?"), \(tracks.count) track\(tracks.count == 1 ? "" : "s"), "
            + "\(s.segments) segment\(s.segments == 1 ? "" : "s"), \(s.points) point\(s.points == 1 ? "" : "s")"
        lines.append(head)
        lines.append(row("distance", "\(km(s.length2d)) (3D \(km(s.length3d)))"))
        if let d = s.duration {
            var t = clock(d)
            if let m = s.movingTime, let st = s.stoppedTime { t += "   moving \(clock(m))   stopped \(clock(st))" }
            lines.append(row("duration", t))
        }
        if let avg = s.averageMovingSpeed {
            var t = "average \(kmh(avg)) while moving"
            if let mx = s.maximumSpeed { t += "   maximum \(kmh(mx))" }
            lines.append(row("speed", t))
        }
        if let gain = s.elevationGain, let loss = s.elevationLoss {
            var t = String(format: "+%.0f m / -%.0f m", gain, loss)
            if let lo = s.minimumElevation, let hi = s.maximumElevation { t += String(format: "   (lowest %.0f m, highest %.0f m)", lo, hi) }
            lines.append(row("elevation", t))
        }
        if let a = s.startTime, let b = s.endTime {
            lines.append(row("time", "\(iso(a)) → \(iso(b))"))
        }
        if let b = s.bounds {
            lines.append(row("bounds", String(format: "lat %.5f…%.5f, lon %.5f…%.5f", b.minLatitude, b.maxLatitude,
                                              b.minLongitude, b.maxLongitude)))
        }
        if skippedPoints > 0 { lines.append(row("skipped", "\(skippedPoints) invalid points")) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func row(_ label: String, _ value: String) -> String {
        "  " + label.padding(toLength: 11, withPad: " ", startingAt: 0) + value
    }
    private func km(_ m: Double) -> String { String(format: "%.3f km", m / 1000) }
    private func kmh(_ mps: Double) -> String { String(format: "%.1f km/h", mps * 3.6) }
    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }
    private func iso(_ date: Date) -> String { date.formatted(.iso8601) }
}

/// `TrackStatistics` as JSON, with units in the key names' documentation: metres, seconds, m/s.
struct StatisticsJSON: Encodable {
    struct Bounds: Encodable {
        var minLatitude, minLongitude, maxLatitude, maxLongitude: Double
    }

    var points: Int
    var segments: Int
    /// Metres on the WGS-84 ellipsoid, not bridging gaps between segments.
    var length2d: Double
    var length3d: Double
    var duration: Double?
    var movingTime: Double?
    var stoppedTime: Double?
    var averageMovingSpeed: Double?
    var maximumSpeed: Double?
    var elevationGain: Double?
    var elevationLoss: Double?
    var minimumElevation: Double?
    var maximumElevation: Double?
    var startTime: Date?
    var endTime: Date?
    var bounds: Bounds?

    init(_ s: TrackStatistics) {
        points = s.pointCount
        segments = s.segmentCount
        length2d = s.distance2D
        length3d = s.distance3D
        duration = s.duration
        movingTime = s.movingTime
        stoppedTime = s.stoppedTime
        averageMovingSpeed = s.averageMovingSpeed
        maximumSpeed = s.maximumSpeed
        elevationGain = s.elevationGain
        elevationLoss = s.elevationLoss
        minimumElevation = s.minimumElevation
        maximumElevation = s.maximumElevation
        startTime = s.startTime
        endTime = s.endTime
        bounds = s.bounds.map { Bounds(minLatitude: $0.minLatitude, minLongitude: $0.minLongitude,
                                       maxLatitude: $0.maxLatitude, maxLongitude: $0.maxLongitude) }
    }
}
