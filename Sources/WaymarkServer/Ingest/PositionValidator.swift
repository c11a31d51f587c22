import Foundation
import WaymarkGeo

/// Checks decoded points and turns the valid ones into ``Position``s.
///
/// Rejected: a missing, non-finite or out-of-range latitude ([-90, 90]) or longitude
/// ([-180, 180]); a missing timestamp, one before 2000-01-01T00:00:00Z, or one more than
/// 24 hours after the server's clock. Optional values that are not finite, or negative where
/// iOS uses -1 for "unknown" (accuracy, speed, course), become nil instead of rejecting the point.
/// An activity loses NUL characters and is cut to 200 characters.
struct PositionValidator: Sendable {
    /// The server's clock reading for this request.
    var now: Date
    /// Earliest accepted timestamp.
    static let earliest = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z
    /// How far into the future a timestamp may be, in seconds.
    static let futureTolerance: TimeInterval = 24 * 3600

    /// Validates `candidates` for `deviceID`; returns the positions and the problems by index.
    func validate(_ candidates: [PositionCandidate], deviceID: String) -> (positions: [Position], problems: [PointProblem]) {
        var positions: [Position] = []
        var problems: [PointProblem] = []
        positions.reserveCapacity(candidates.count)
        for (index, candidate) in candidates.enumerated() where candidate.gap == nil {
            var found = candidate.problems.map { PointProblem(index: index, field: $0.field, message: $0.message) }
            let names = candidate.names
            let latitude = check(candidate.latitude, name: names.latitude, range: -90...90, index: index, into: &found)
            let longitude = check(candidate.longitude, name: names.longitude, range: -180...180, index: index, into: &found)
            if candidate.problems.isEmpty {
                if let time = candidate.timestamp {
                    if let message = outOfRange(time) { found.append(PointProblem(index: index, field: names.timestamp, message: message)) }
                } else {
                    found.append(PointProblem(index: index, field: names.timestamp, message: "missing; expected the time of the fix"))
                }
            }
            guard found.isEmpty, let latitude, let longitude, let timestamp = candidate.timestamp else {
                problems.append(contentsOf: found)
                continue
            }
            let fix = Fix(
                coordinate: Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(longitude)),
                altitude: finite(candidate.altitude),
                horizontalAccuracy: nonNegative(candidate.horizontalAccuracy),
                verticalAccuracy: nonNegative(candidate.verticalAccuracy),
                speed: nonNegative(candidate.speed),
                course: nonNegative(candidate.course).map { $0.truncatingRemainder(dividingBy: 360) },
                timestamp: timestamp, source: candidate.source)
            let battery = finite(candidate.batteryLevel).flatMap { (0...1).contains($0) ? $0 : nil }
            positions.append(Position(deviceID: deviceID, fix: fix, batteryLevel: battery,
                                      isCharging: candidate.isCharging, activity: activity(candidate.activity)))
        }
        return (positions, problems)
    }

    private func check(_ value: Double?, name: String, range: ClosedRange<Double>, index: Int,
                       into problems: inout [PointProblem]) -> Double? {
        guard let value else {
            problems.append(PointProblem(index: index, field: name, message: "missing; expected degrees in \(bounds(range))"))
            return nil
        }
        guard value.isFinite else {
            problems.append(PointProblem(index: index, field: name, message: "\(value) is not a finite number"))
            return nil
        }
        guard range.contains(value) else {
            problems.append(PointProblem(index: index, field: name, message: "\(value) is outside \(bounds(range))"))
            return nil
        }
        return value
    }

    /// The activity without NUL characters (PostgreSQL text cannot hold them), at most 200 characters; nil if empty.
    /// The gap markers among `candidates` for `deviceID`, and the problems of the invalid ones by index.
    ///
    /// A gap needs `start` and `end` times within the same bounds as a point's, `start` not after
    /// `end`. The reason and ride id lose NUL characters and are cut to 200 characters; a missing
    /// reason is stored as `unknown`.
    func gaps(_ candidates: [PositionCandidate], deviceID: String) -> (gaps: [PositionGap], problems: [PointProblem]) {
        var gaps: [PositionGap] = []
        var problems: [PointProblem] = []
        for (index, candidate) in candidates.enumerated() {
            guard let gap = candidate.gap else { continue }
            var found = gap.unreadable.map {
                PointProblem(index: index, field: $0.field, message: "'\($0.text)' is not an ISO-8601 date-time or epoch number")
            }
            for (name, time) in [("properties.start", gap.start), ("properties.end", gap.end)]
            where !gap.unreadable.contains(where: { $0.field == name }) {
                guard let time else {
                    found.append(PointProblem(index: index, field: name, message: "missing; a gap marker needs its start and end times"))
                    continue
                }
                if let message = outOfRange(time) { found.append(PointProblem(index: index, field: name, message: message)) }
            }
            if found.isEmpty, let start = gap.start, let end = gap.end, end < start {
                found.append(PointProblem(index: index, field: "properties.end",
                                          message: "\(iso(end)) is before the gap's start \(iso(start))"))
            }
            guard found.isEmpty, let start = gap.start, let end = gap.end else {
                problems += found
                continue
            }
            gaps.append(PositionGap(deviceID: deviceID, rideID: activity(gap.rideID), start: start, end: end,
                                    reason: activity(gap.reason) ?? "unknown"))
        }
        return (gaps, problems)
    }

    /// Why `time` is not accepted (before 2000, or more than 24 h after the server clock), or nil.
    private func outOfRange(_ time: Date) -> String? {
        if time < Self.earliest { return "\(iso(time)) is before 2000-01-01T00:00:00Z" }
        if time.timeIntervalSince(now) > Self.futureTolerance {
            return "\(iso(time)) is more than 24 h after the server time \(iso(now))"
        }
        return nil
    }

    /// Text the client sent (an activity, a gap's reason or ride id): no NUL characters, at most
    /// 200 characters, nil when empty.
    private func activity(_ text: String?) -> String? {
        guard var text else { return nil }
        if text.utf8.contains(0) { text.removeAll { $0 == "\u{0}" } }
        if text.count > 200 { text = String(text.prefix(200)) }
        return text.isEmpty ? nil : text
    }

    private func bounds(_ range: ClosedRange<Double>) -> String { "[\(Int(range.lowerBound)), \(Int(range.upperBound))]" }
    private func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
    private func nonNegative(_ value: Double?) -> Double? { finite(value).flatMap { $0 >= 0 ? $0 : nil } }
    private func iso(_ date: Date) -> String { TimestampParser.format(date) }
}
