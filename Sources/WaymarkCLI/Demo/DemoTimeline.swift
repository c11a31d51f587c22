import Foundation

/// One line of the demo's timeline: what happened, when (virtual seconds since the first launch).
struct DemoTimelineEntry: Hashable, Sendable, Codable {
    /// What kind of thing happened.
    enum Kind: String, Hashable, Sendable, Codable {
        case prompt, launch, map, app, ride, fixes, gap, gnss, fence, network, upload, server
    }

    var t: Double
    var kind: Kind
    var text: String

    /// `  01:02:03  ride     auto-paused`.
    var rendered: String {
        "  \(Self.clock(t))  \(kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(text)"
    }

    /// `h:mm:ss` of virtual seconds.
    static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded()))
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }
}

/// Turns the simulator's system notes into timeline lines, dropping the ones a reader does not
/// need (every suspension, timers) and repeats.
enum DemoNotes {
    /// The timeline line for a simulator note, or nil to leave it out.
    static func entry(note: String, at t: Double) -> DemoTimelineEntry? {
        if note.hasPrefix("prompt shown: ") {
            return DemoTimelineEntry(t: t, kind: .prompt, text: "\(promptName(note.dropFirst(14))) prompt shown")
        }
        if note.hasPrefix("prompt answered: ") {
            // "prompt answered: location when-in-use, allow"
            let body = note.dropFirst(17)
            let comma = body.lastIndex(of: ",")
            let prompt = comma.map { body[..<$0] } ?? body
            let answer = comma.map { body[body.index(after: $0)...].trimmingCharacters(in: .whitespaces) } ?? "answered"
            return DemoTimelineEntry(t: t, kind: .prompt, text: "\(promptName(prompt)) prompt: user taps \(answer)")
        }
        if note.hasPrefix("prompt collision") { return DemoTimelineEntry(t: t, kind: .prompt, text: note) }
        if note.hasPrefix("launched (") {
            let reason = note.dropFirst(10).dropLast()
            let text = reason == "user" ? "app launched by the user" : "app relaunched in the background by iOS (\(reason) event)"
            return DemoTimelineEntry(t: t, kind: .app, text: text)
        }
        if note.hasPrefix("terminated") || note.hasPrefix("force-quit") {
            return DemoTimelineEntry(t: t, kind: .app, text: "app killed: \(note)")
        }
        if note == "GNSS lost (outage)" { return DemoTimelineEntry(t: t, kind: .gnss, text: "GNSS lost: entering the tunnel") }
        if note.hasPrefix("standard updates paused automatically") {
            return DemoTimelineEntry(t: t, kind: .gnss, text: "iOS paused location updates (rider still)")
        }
        if note.hasPrefix("network ") { return DemoTimelineEntry(t: t, kind: .network, text: "phone is \(note.dropFirst(8))") }
        return nil
    }

    private static func promptName<S: StringProtocol>(_ kind: S) -> String {
        switch kind {
        case "notifications": "notification"
        case "location when-in-use": "location (when in use)"
        case "location always (upgrade)": "location (always upgrade)"
        case "motion": "motion"
        default: String(kind)
        }
    }
}
