import Foundation
import WaymarkEngine

/// The simulator's log: every event delivered, every command performed, and system notes the app cannot see.
///
/// Rendered as JSON lines with virtual timestamps; the same scenario and seed give identical bytes.
public struct EventLog: Hashable, Sendable {
    /// One log line.
    public struct Entry: Hashable, Sendable, Codable {
        /// Virtual seconds since the scenario start.
        public var t: Double
        /// `event`, `command` or `system`.
        public var kind: Kind
        /// The event, for `event` lines.
        public var event: DeviceEvent?
        /// The command, for `command` lines.
        public var command: DeviceCommand?
        /// A note for `system` lines (prompt shown, collision, suspended, terminated...).
        public var note: String?

        /// Line kinds.
        public enum Kind: String, Hashable, Sendable, Codable {
            /// Something the app received.
            case event
            /// Something the app asked of the system.
            case command
            /// A note on what the system did that the app cannot see.
            case system
        }
    }

    /// All entries in order.
    public private(set) var entries: [Entry] = []

    mutating func append(_ entry: Entry) { entries.append(entry) }

    /// Inserts `entry` after every entry at or before its time (a note about something that happened
    /// earlier than the simulation's present, such as an upload the app's queue sent meanwhile).
    mutating func insertInOrder(_ entry: Entry) {
        let index = entries.lastIndex { $0.t <= entry.t }.map { $0 + 1 } ?? 0
        entries.insert(entry, at: index)
    }

    /// System notes only, in order (what happened that the app could not see).
    public var systemNotes: [String] { entries.compactMap { $0.kind == .system ? $0.note : nil } }

    /// The log as JSON lines, one per entry, keys sorted, dates as seconds since 1970.
    public func jsonLines() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        var out = ""
        for entry in entries {
            if let data = try? encoder.encode(entry), let line = String(data: data, encoding: .utf8) {
                out += line
                out += "\n"
            }
        }
        return out
    }
}
