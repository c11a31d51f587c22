import Foundation
import WaymarkGeo

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

    /// The entry as one line of the log file, without the line break.
    public var line: String {
        let level = self.level.rawValue.uppercased()
        let padLevel = String(repeating: " ", count: max(0, 7 - level.count))
        let category = self.category.rawValue
        let padCategory = String(repeating: " ", count: max(0, 10 - category.count))
        let flat = message.replacingOccurrences(of: "\r\n", with: "\\n")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\n")
        return "\(FieldLogTime.format(time)) \(level)\(padLevel) \(category)\(padCategory) \(flat)"
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
              let time = FieldLogTime.parse(stamp),
              let level = FieldLogLevel(rawValue: levelName.lowercased()) else { return nil }
        self.init(time: time, level: level, category: FieldLogCategory(String(categoryName)),
                  message: String(rest.dropFirst().drop { $0 == " " }))
    }
}

/// The field log's times: UTC, ISO 8601 with milliseconds (`2026-11-28T08:00:05.120Z`), rounded to
/// the nearest millisecond, so that a time read back writes the same text again.
enum FieldLogTime {
    static func format(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, milli) = ms.quotientAndRemainder(dividingBy: 1000)
        let shiftedSeconds = milli < 0 ? seconds - 1 : seconds
        let millis = milli < 0 ? milli + 1000 : milli
        var (days, secondOfDay) = shiftedSeconds.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 { days -= 1; secondOfDay += 86_400 }
        let (year, month, day) = CivilDate.date(days: Int(days))
        return pad(Int64(year), 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2) + "." + pad(millis, 3) + "Z"
    }

    static func parse(_ text: some StringProtocol) -> Date? {
        let chars = Array(text.utf8)
        guard chars.count == 24, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"), chars[10] == UInt8(ascii: "T"),
              chars[13] == UInt8(ascii: ":"), chars[16] == UInt8(ascii: ":"), chars[19] == UInt8(ascii: "."),
              chars[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for c in chars[range] {
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(c - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let milli = number(20..<23),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = Int64(CivilDate.days(year: Int(year), month: Int(month), day: Int(day)))
        let ms = ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + milli
        return Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
