import Foundation

/// How much an entry matters, from ``debug`` (off by default) to ``error``.
///
/// The levels match `os.Logger`'s and swift-log's, so an entry keeps its level in the system log.
/// A `Sendable` value type; ordered (`.debug < .info`).
public enum FieldLogLevel: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    /// Detail for a developer: every fix delivered, every command to the OS. Off by default.
    case debug
    /// What a support engineer reads: launches, authorization, rides, fence decisions, uploads.
    case info
    /// Something the user may notice: iOS paused updates, a background task expired, a gap in a ride.
    case notice
    /// Something that stops Waymark doing its work: a region that cannot be monitored, a refused upload.
    case warning
    /// A failure: the log itself could not be written, a batch the server will never take.
    case error

    /// The order of the cases: `debug < info < notice < warning < error`.
    public static func < (a: FieldLogLevel, b: FieldLogLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What part of Waymark an entry comes from; the category of the system-log copy too.
///
/// A `Sendable` value type with static members for Waymark's own parts; an app may make its own
/// (`FieldLogCategory("checkout")`). One word, no spaces.
public struct FieldLogCategory: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible {
    /// The category's name.
    public let rawValue: String

    /// Makes a category; spaces become `-`, so a line keeps its columns.
    public init(rawValue: String) {
        self.rawValue = rawValue.isEmpty ? "-" : rawValue.replacingOccurrences(of: " ", with: "-")
    }

    /// Makes a category from its name.
    public init(_ name: String) { self.init(rawValue: name) }

    /// Makes a category from a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The name.
    public var description: String { rawValue }

    /// Process launches and their cause.
    public static let launch = FieldLogCategory("launch")
    /// Location authorization and permission prompts.
    public static let permission = FieldLogCategory("permission")
    /// Rides: start, pause, stop, gaps, automatic tracking.
    public static let ride = FieldLogCategory("ride")
    /// Geofence decisions and region monitoring.
    public static let geofence = FieldLogCategory("geofence")
    /// Location services: the launch fix, requests, pauses, errors, deliveries.
    public static let location = FieldLogCategory("location")
    /// The app's lifecycle, the network, background time and device settings.
    public static let system = FieldLogCategory("system")
    /// Uploads and their outcomes (WaymarkSync).
    public static let upload = FieldLogCategory("upload")
    /// The field log itself (a file that could not be written).
    public static let log = FieldLogCategory("log")
}

/// One line of the field log: when, how much it matters, from which part, and what happened.
///
/// On disk an entry is one line of text, readable as it is and easy to filter:
///
/// ```
/// 2026-11-28T08:00:05.120Z INFO    launch     launched by the user (cause: opened by the user)
/// 2026-11-28T08:14:47.000Z INFO    ride       ride 'demo' auto-paused: the rider stopped
/// ```
///
/// The time is UTC with milliseconds, the device's time when the event happened (virtual time in
/// the simulator). A message never spans lines (a line break is written as `\n`).
/// A `Sendable` value type.
public struct FieldLogEntry: Hashable, Sendable {
    /// When it happened.
    public var time: Date
    /// How much it matters.
    public var level: FieldLogLevel
    /// Which part of Waymark (or of the app) it comes from.
    public var category: FieldLogCategory
    /// What happened, in words a support engineer can act on.
    public var message: String

    /// Makes an entry.
    public init(time: Date, level: FieldLogLevel, category: FieldLogCategory, message: String) {
        self.time = time
        self.level = level
        self.category = category
        self.message = message
    }

    static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The entry as one line of the log file, without the line break.
    public var line: String {
        let level = self.level.rawValue.uppercased()
        let padLevel = String(repeating: " ", count: max(0, 7 - level.count))
        let category = self.category.rawValue
        let padCategory = String(repeating: " ", count: max(0, 10 - category.count))
        let flat = message.replacingOccurrences(of: "\r\n", with: "\\n")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\n")
        return "\(Self.timeStyle.format(time)) \(level)\(padLevel) \(category)\(padCategory) \(flat)"
    }

    /// Reads a line written by ``line``; nil for anything else (a comment, a line cut short by a
    /// crash).
    public init?(line: some StringProtocol) {
        var rest = Substring(line)
        func token() -> Substring? {
            rest = rest.drop { $0 == " " }
            guard let end = rest.firstIndex(of: " ") else { return nil }
            defer { rest = rest[end...] }
            return rest[..<end]
        }
        guard let stamp = token(), let levelName = token(), let categoryName = token(),
              let time = try? Self.timeStyle.parse(String(stamp)),
              let level = FieldLogLevel(rawValue: levelName.lowercased()) else { return nil }
        self.init(time: time, level: level, category: FieldLogCategory(String(categoryName)),
                  message: String(rest.dropFirst().drop { $0 == " " }))
    }
}
