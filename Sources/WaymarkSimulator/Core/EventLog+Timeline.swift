import Foundation
import WaymarkEngine
import WaymarkGeo

extension EventLog {
    /// The log as human-readable text, one line per entry: virtual seconds, then a short description.
    ///
    /// Events read as what the app received ("authorization: when in use", "3 fixes (gnss, ±5–9 m)"),
    /// commands start with "app:", system notes (what the app cannot see) with "system:". Consecutive
    /// single-fix deliveries collapse into one line; a batch of several fixes in one delivery keeps
    /// its own line and says how late it is. For example:
    ///
    /// ```text
    ///      0.0 s  launched by the user
    ///      0.0 s  app: request when-in-use authorization
    ///      0.0 s  system: prompt shown: location when-in-use
    ///     13.0 s  118 fixes in 118 deliveries until 130.0 s (gnss+wifi, ±5–95 m)
    ///    900.0 s  3 fixes (cell, ±610–1850 m), measured 12–610 s earlier
    /// ```
    ///
    /// - parameter epoch: the wall-clock time of virtual second 0, to tell how old delivered fixes are.
    public func timeline(epoch: Date) -> String {
        var lines: [String] = []
        var run: (from: Double, to: Double, fixes: [Fix], deliveries: Int)?
        func flush() {
            guard let r = run else { return }
            if r.deliveries == 1 {
                lines.append(Self.stamp(r.from) + TimelineText.event(.locations(r.fixes), at: epoch.addingTimeInterval(r.from)))
            } else {
                let summary = TimelineText.fixes(r.fixes)
                let open = summary.firstIndex(of: "(") ?? summary.endIndex
                lines.append(Self.stamp(r.from) + summary[..<open] + "in \(r.deliveries) deliveries until "
                             + String(format: "%.1f s ", r.to) + summary[open...])
            }
            run = nil
        }
        for entry in entries {
            if entry.kind == .event, case .locations(let fixes) = entry.event {
                if fixes.count == 1 {
                    if run == nil { run = (entry.t, entry.t, [], 0) }
                    run!.to = entry.t
                    run!.fixes += fixes
                    run!.deliveries += 1
                    continue
                }
            }
            flush()
            switch entry.kind {
            case .event:
                if let event = entry.event { lines.append(Self.stamp(entry.t) + TimelineText.event(event, at: epoch.addingTimeInterval(entry.t))) }
            case .command:
                if let command = entry.command { lines.append(Self.stamp(entry.t) + TimelineText.command(command)) }
            case .system:
                lines.append(Self.stamp(entry.t) + "system: " + (entry.note ?? ""))
            }
        }
        flush()
        return lines.joined(separator: "\n")
    }

    private static func stamp(_ t: Double) -> String { String(format: "%9.1f s  ", t) }
}

extension Simulation {
    /// The run so far as human-readable text (see ``EventLog/timeline(epoch:)``).
    public var timeline: String { log.timeline(epoch: epoch) }
}
