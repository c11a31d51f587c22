import Foundation
import WaymarkGeo

/// Checks decoded points and turns the valid ones into ``Position``s.
///
/// Rejected: a missing, non-finite or out-of-range latitude ([-90, 90]) or longitude
/// ([-180, 180]); a missing timestamp, one before 2000-01-01T00:00:00Z, or one more than
/// 24 hours after the server's clock. Optional values that are not finite, or negative where
/// iOS uses -1 for "unknown" (accuracy, speed, course), become nil instead of rejecting the point.
/// So does an accuracy of 0: every client studied sends 0 for "not available" (Docs/SERVER.md), and no
/// receiver reports a perfect fix. An altitude whose vertical accuracy is negative is invalid (iOS's
/// convention) and is dropped, unless the decoder found the client means only "accuracy unknown" (the
/// transistorsoft plugin on Android; ``PositionCandidate/negativeVerticalAccuracyVoidsAltitude``). An activity loses NUL characters and is
/// cut to 200 UTF-8 bytes; `unknown` is no activity.
struct PositionValidator: Sendable {
    /// The server's clock reading for this request.
    var now: Date
    /// Earliest accepted timestamp.
    static let earliest = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z
    /// How far into the future a timestamp may be, in seconds.
    static let futureTolerance: TimeInterval = 24 * 3600

    /// What validation of one request produced.
    struct Outcome: Sendable {
        var positions: [Position] = []
        var gaps: [PositionGap] = []
        /// Records without a position, and (with `keepRejected`) the rejected points.
        var deviceEvents: [DeviceEventRecord] = []
        var rejections: Rejections
    }

    /// Validates a decoded body: its points and gap markers (see the other `validate`) and its records
    /// without a position, which become ``DeviceEventRecord``s.
    ///
    /// With `keepRejected`, each of the first `sampleLimit` rejected points also becomes a ``DeviceEventRecord``
    /// of kind ``DeviceEventRecord/rejectedKind`` holding its problems and the values read, and any further ones
    /// one more such event that counts them: for routes whose clients resend a refused request forever, so
    /// the request is acknowledged and what it held stays visible.
    func validate(_ body: DecodedBody, deviceID: String, sampleLimit: Int = .max, keepRejected: Bool = false) -> Outcome {
        var outcome = validate(body.candidates, deviceID: deviceID, sampleLimit: sampleLimit)
        for event in body.events {
            outcome.deviceEvents.append(DeviceEventRecord(deviceID: deviceID, kind: event.kind, time: event.time.flatMap(plausible),
                                                    receivedAt: now, detail: event.detail))
        }
        guard keepRejected, outcome.rejections.count > 0 else { return outcome }
        var problems: [Int: [[String: Any]]] = [:]
        for problem in outcome.rejections.sample {
            problems[problem.index, default: []].append(["field": problem.field, "message": problem.message])
        }
        for index in problems.keys.sorted() where body.candidates.indices.contains(index) {
            let c = body.candidates[index]
            var values: [String: Any] = [:]
            if let v = c.latitude, v.isFinite { values[c.names.latitude] = v }
            if let v = c.longitude, v.isFinite { values[c.names.longitude] = v }
            if let t = c.timestamp { values[c.names.timestamp] = TimestampParser.format(t) }
            let record: [String: Any] = ["index": index, "problems": problems[index] ?? [], "values": values]
            let event = EventCandidate(kind: DeviceEventRecord.rejectedKind, time: c.timestamp.flatMap(plausible), record: record)
            outcome.deviceEvents.append(DeviceEventRecord(deviceID: deviceID, kind: event.kind, time: event.time, receivedAt: now,
                                                    detail: event.detail))
        }
        if outcome.rejections.isTruncated {
            let record: [String: Any] = ["more_rejected": outcome.rejections.count - outcome.rejections.sampleLimit,
                                         "by_field": outcome.rejections.byField]
            let event = EventCandidate(kind: DeviceEventRecord.rejectedKind, time: nil, record: record)
            outcome.deviceEvents.append(DeviceEventRecord(deviceID: deviceID, kind: event.kind, time: nil, receivedAt: now, detail: event.detail))
        }
        return outcome
    }

    /// `time` when a point at that time would be accepted, else nil (an event keeps its detail either way).
    private func plausible(_ time: Date) -> Date? { outOfRange(time) == nil ? time : nil }

    /// Validates `candidates` for `deviceID` in one pass: the valid points, the valid gap markers, and a
    /// bounded summary of the rest (problems of the first `sampleLimit` rejected entries, counts for all).
    func validate(_ candidates: [PositionCandidate], deviceID: String, sampleLimit: Int = .max) -> Outcome {
        var outcome = Outcome(rejections: Rejections(sampleLimit: sampleLimit))
        outcome.positions.reserveCapacity(candidates.count)
        for (index, candidate) in candidates.enumerated() {
            if let gap = candidate.gap {
                if let valid = self.gap(gap, index: index, deviceID: deviceID, into: &outcome.rejections) {
                    outcome.gaps.append(valid)
                }
            } else if let position = point(candidate, index: index, deviceID: deviceID, into: &outcome.rejections) {
                outcome.positions.append(position)
            }
        }
        return outcome
    }

    private func point(_ candidate: PositionCandidate, index: Int, deviceID: String,
                       into rejections: inout Rejections) -> Position? {
        var rejected = false
        for problem in candidate.problems {
            rejected = true
            rejections.add(index: index, field: problem.field, message: problem.message)
        }
        guard !candidate.isOtherEntry else { return nil }
        let names = candidate.names
        let latitude = check(candidate.latitude, name: names.latitude, range: -90...90, index: index,
                             rejected: &rejected, into: &rejections)
        let longitude = check(candidate.longitude, name: names.longitude, range: -180...180, index: index,
                              rejected: &rejected, into: &rejections)
        if candidate.problems.isEmpty {
            if let time = candidate.timestamp {
                if let message = outOfRange(time) {
                    rejected = true
                    rejections.add(index: index, field: names.timestamp, message: message)
                }
            } else {
                rejected = true
                rejections.add(index: index, field: names.timestamp, message: "missing; expected the time of the fix")
            }
        }
        guard !rejected, let latitude, let longitude, let timestamp = candidate.timestamp else { return nil }
        // A negative vertical accuracy says the altitude is invalid, for the clients where it means that.
        let altitudeValid = !candidate.negativeVerticalAccuracyVoidsAltitude || (candidate.verticalAccuracy ?? 0) >= 0
        let fix = Fix(
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(longitude)),
            altitude: altitudeValid ? finite(candidate.altitude) : nil,
            horizontalAccuracy: positive(candidate.horizontalAccuracy),
            verticalAccuracy: positive(candidate.verticalAccuracy),
            speed: nonNegative(candidate.speed),
            course: nonNegative(candidate.course).map { $0.truncatingRemainder(dividingBy: 360) },
            timestamp: timestamp, source: candidate.source, sourceInformation: candidate.sourceInformation,
            impliesImpossibleSpeed: candidate.impliesImpossibleSpeed)
        let battery = finite(candidate.batteryLevel).flatMap { (0...1).contains($0) ? $0 : nil }
        let activity = Self.clientText(candidate.activity).flatMap { $0.lowercased() == "unknown" ? nil : $0 }
        return Position(deviceID: deviceID, fix: fix, batteryLevel: battery,
                        isCharging: candidate.isCharging, activity: activity)
    }

    private func check(_ value: Double?, name: String, range: ClosedRange<Double>, index: Int,
                       rejected: inout Bool, into rejections: inout Rejections) -> Double? {
        guard let value else {
            rejected = true
            rejections.add(index: index, field: name, message: "missing; expected degrees in \(bounds(range))")
            return nil
        }
        guard value.isFinite else {
            rejected = true
            rejections.add(index: index, field: name, message: "\(value) is not a finite number")
            return nil
        }
        guard range.contains(value) else {
            rejected = true
            rejections.add(index: index, field: name, message: "\(value) is outside \(bounds(range))")
            return nil
        }
        return value
    }

    /// A gap marker for `deviceID`, or nil after recording its problems.
    ///
    /// A gap needs `start` and `end` times within the same bounds as a point's, `start` not after
    /// `end`. The reason and ride id are client text (see ``clientText(_:)``); a missing reason is
    /// stored as `unknown`.
    private func gap(_ gap: PositionCandidate.GapFields, index: Int, deviceID: String,
                     into rejections: inout Rejections) -> PositionGap? {
        var rejected = false
        for unreadable in gap.unreadable {
            rejected = true
            rejections.add(index: index, field: unreadable.field,
                           message: "\(ClientText.quoted(unreadable.text)) is not an ISO-8601 date-time or epoch number")
        }
        for (name, time) in [("properties.start", gap.start), ("properties.end", gap.end)]
        where !gap.unreadable.contains(where: { $0.field == name }) {
            guard let time else {
                rejected = true
                rejections.add(index: index, field: name, message: "missing; a gap marker needs its start and end times")
                continue
            }
            if let message = outOfRange(time) {
                rejected = true
                rejections.add(index: index, field: name, message: message)
            }
        }
        if !rejected, let start = gap.start, let end = gap.end, end < start {
            rejected = true
            rejections.add(index: index, field: "properties.end", message: "\(iso(end)) is before the gap's start \(iso(start))")
        }
        guard !rejected, let start = gap.start, let end = gap.end else { return nil }
        return PositionGap(deviceID: deviceID, rideID: Self.clientText(gap.rideID), start: start, end: end,
                           reason: Self.clientText(gap.reason) ?? "unknown")
    }

    /// Why `time` is not accepted (before 2000, or more than 24 h after the server clock), or nil.
    private func outOfRange(_ time: Date) -> String? {
        if time < Self.earliest { return "\(iso(time)) is before 2000-01-01T00:00:00Z" }
        if time.timeIntervalSince(now) > Self.futureTolerance {
            return "\(iso(time)) is more than 24 h after the server time \(iso(now))"
        }
        return nil
    }

    /// Most UTF-8 bytes kept of client text (an activity, a gap's reason or ride id).
    static let maxTextBytes = 200

    /// Text the client sent (an activity, a gap's reason or ride id): at most ``maxTextBytes`` UTF-8
    /// bytes (cut at a scalar boundary, so one huge grapheme cluster cannot pass), no NUL characters
    /// (PostgreSQL text cannot hold them), nil when empty. Costs O(``maxTextBytes``), whatever was sent.
    static func clientText(_ text: String?) -> String? {
        guard let text else { return nil }
        var kept = ClientText.truncated(text, maxBytes: maxTextBytes)
        if kept.utf8.contains(0) { kept.removeAll { $0 == "\u{0}" } }
        return kept.isEmpty ? nil : kept
    }

    private func bounds(_ range: ClosedRange<Double>) -> String { "[\(Int(range.lowerBound)), \(Int(range.upperBound))]" }
    private func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
    private func nonNegative(_ value: Double?) -> Double? { finite(value).flatMap { $0 >= 0 ? $0 : nil } }
    private func positive(_ value: Double?) -> Double? { finite(value).flatMap { $0 > 0 ? $0 : nil } }
    private func iso(_ date: Date) -> String { TimestampParser.format(date) }
}
