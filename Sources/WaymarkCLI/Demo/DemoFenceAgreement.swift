import Foundation

/// Whether the fence events the phone delivered and the ones the server decided from the uploaded
/// points tell the same story, and by how much their times differ.
///
/// The two sides decide differently, so their times may differ even when both are right:
/// - **Hysteresis.** The phone's ``GeofenceMonitor`` enters only when a fix is inside by
///   max(10 m, the fix's accuracy) and exits only when it is beyond the boundary by max(20 m, the
///   accuracy), so that receiver noise at the boundary does not flicker; the server takes the
///   boundary itself, on the segment between consecutive stored points. Near the visitor center
///   the rider pushes the bike at about 0.5 m/s, so 20–30 m take up to a minute; the phone also
///   sees fixes the ride tracker did not record. Bound: ``fixToleranceSeconds``.
/// - **Re-entry debounce.** After an exit the phone holds back a re-entry for 60 s (then
///   delivers it, at the next fix, if the rider is still inside); the server reports the re-entry
///   when it happened. Applies to an enter that the phone delivered within 60 s +
///   ``fixToleranceSeconds`` of its exit from the same fence. Bound: ``debounceToleranceSeconds``
///   (the window plus the hysteresis bound).
/// - **Region events.** While the app is terminated or GNSS rests at a stop, the phone learns of a
///   crossing from iOS's region monitoring (a 50 m buffer, about 20 s inside, then about 60 s of
///   delivery latency); the server only has the points around that span and places the crossing
///   at the first point on the new side. Bound: the span without recorded points around the
///   phone's event, plus ``fixToleranceSeconds``.
///
/// - **Late events.** An event the phone did not decide live (iOS's region event, or a position
///   found after a gap: ``FenceEvent/Timing``) carries an estimate of the crossing time and the
///   window it lies in. iOS delivers region events minutes late (PLATFORM.md §5), so its pair
///   agrees when the server's time lies in that window, widened by ``fixToleranceSeconds``.
///
/// The events agree when both lists have the same length and, pair by pair in order, the same
/// fence and kind, and times within the bound of the phone event's cause. A `Sendable` value.
struct DemoFenceAgreement: Hashable, Sendable, Codable {
    /// The bound for events the phone decided from a fix, seconds.
    static let fixToleranceSeconds: Double = 60
    /// The bound for a re-entry the phone held back for its debounce window, seconds.
    static let debounceToleranceSeconds: Double = 120
    /// The phone's re-entry debounce window (``GeofenceMonitor/Configuration/reentryDebounce``), seconds.
    static let reentryDebounceSeconds: Double = 60

    /// Pairs compared (the shorter list's length).
    var pairs: Int
    /// The largest time difference among matching pairs decided live, seconds (late events are
    /// checked against their window instead).
    var largestDifferenceSeconds: Double
    /// What does not agree, one sentence each; empty when the events agree.
    var problems: [String]

    /// Whether the events agree (no problems).
    var agree: Bool

    /// Compares the events; `recorded` are the timestamps of the fixes the phone recorded, ascending.
    init(device: [DemoFenceEvent], server: [DemoFenceEvent], recorded: [Date]) {
        pairs = min(device.count, server.count)
        largestDifferenceSeconds = 0
        problems = []
        if device.count != server.count {
            problems.append("the phone has \(device.count) fence events and the server \(server.count)")
        }
        for (i, (d, s)) in zip(device, server).enumerated() {
            guard d.fence == s.fence, d.kind == s.kind else {
                problems.append("event \(i + 1): phone \(d.kind) \(d.fence), server \(s.kind) \(s.fence)")
                continue
            }
            let difference = abs(d.time.timeIntervalSince(s.time))
            if let latest = d.latest, d.timing != nil, d.timing != "live" {
                let from = (d.earliest ?? s.time).addingTimeInterval(-Self.fixToleranceSeconds)
                let to = latest.addingTimeInterval(Self.fixToleranceSeconds)
                if s.time < from || s.time > to {
                    problems.append(String(format: "event %d (%@ %@, %@): the server's time is outside the phone's window by %.0f s",
                                           i + 1, d.kind, d.fence, d.timing ?? "", max(from.timeIntervalSince(s.time), s.time.timeIntervalSince(to))))
                }
                continue
            }
            largestDifferenceSeconds = max(largestDifferenceSeconds, difference)
            let previous = device[..<i].last { $0.fence == d.fence }
            let debounced = d.kind == "enter" && previous.map {
                $0.kind == "exit" && d.time.timeIntervalSince($0.time) <= Self.reentryDebounceSeconds + Self.fixToleranceSeconds
            } == true
            let bound = debounced ? Self.debounceToleranceSeconds : Self.bound(for: d, recorded: recorded)
            if difference > bound {
                problems.append(String(format: "event %d (%@ %@): %.0f s apart, more than the %.0f s allowed for a %@ decision",
                                       i + 1, d.kind, d.fence, difference, bound, d.decidedBy ?? "fix"))
            }
        }
        agree = problems.isEmpty
    }

    /// The allowed time difference for a phone event, seconds (see the type's documentation).
    static func bound(for event: DemoFenceEvent, recorded: [Date]) -> Double {
        switch event.decidedBy {
        case "debounce":
            return debounceToleranceSeconds
        case "region", "region state":
            let after = recorded.firstIndex { $0 >= event.time }
            let end = after.map { recorded[$0] } ?? event.time
            let start = after.flatMap { $0 > 0 ? recorded[$0 - 1] : nil } ?? recorded.last ?? event.time
            return end.timeIntervalSince(start) + fixToleranceSeconds
        default:
            return fixToleranceSeconds
        }
    }

    /// `yes: 12 events in the same order, times within 52 s` or the first problem.
    var text: String {
        agree ? String(format: "yes: %d events, same fences and kinds in the same order, times within %.0f s",
                       pairs, largestDifferenceSeconds)
            : "NO: " + problems.joined(separator: "; ")
    }
}
