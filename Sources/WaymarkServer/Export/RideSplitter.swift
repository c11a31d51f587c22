import Foundation
import WaymarkGeo

/// One ride: consecutive positions with no pause longer than the ride gap.
public struct RideSummary: Hashable, Sendable {
    /// Time of the first position.
    public var start: Date
    /// Time of the last position.
    public var end: Date
    /// Number of positions.
    public var points: Int
    /// Length along the positions in metres (haversine); a point flagged `Fix.impliesImpossibleSpeed`
    /// adds nothing (the length runs from the point before it to the point after it).
    public var distanceMeters: Double
}

/// Splits a stream of positions (ascending time) into rides; feed it page by page.
///
/// A pure value: `mutating` methods, no I/O, so it works on any amount of data in constant memory.
struct RideSplitter: Sendable {
    /// A pause longer than this (seconds) ends a ride.
    let gapSeconds: TimeInterval
    private(set) var finished: [RideSummary] = []
    private var current: RideSummary?
    private var last: Position?

    init(gapSeconds: TimeInterval) { self.gapSeconds = gapSeconds }

    mutating func add(_ p: Position) {
        // A point the device flagged as implying an impossible speed counts as a point of the ride it falls in,
        // but adds no distance and is not the point the next one is measured from.
        if p.fix.impliesImpossibleSpeed {
            if let last, var ride = current, p.fix.timestamp.timeIntervalSince(last.fix.timestamp) <= gapSeconds {
                ride.points += 1
                ride.end = max(ride.end, p.fix.timestamp)
                current = ride
            }
            return
        }
        if let last, var ride = current, p.fix.timestamp.timeIntervalSince(last.fix.timestamp) <= gapSeconds {
            ride.end = p.fix.timestamp
            ride.points += 1
            ride.distanceMeters += Geodesy.haversineDistance(last.fix.coordinate, p.fix.coordinate)
            current = ride
        } else {
            if let current { finished.append(current) }
            current = RideSummary(start: p.fix.timestamp, end: p.fix.timestamp, points: 1, distanceMeters: 0)
        }
        last = p
    }

    /// The rides finished so far, handed over once (they are forgotten here).
    mutating func takeFinished() -> [RideSummary] {
        defer { finished.removeAll(keepingCapacity: true) }
        return finished
    }

    /// The ride in progress, if any.
    var inProgress: RideSummary? { current }

    /// All rides, the one in progress included.
    var rides: [RideSummary] { finished + (current.map { [$0] } ?? []) }
}
