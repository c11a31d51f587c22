import Foundation

/// The hours in which automatic tracking may start rides: for example weekdays 08:00–18:00.
///
/// Outside every window, hints of movement do not make GNSS check and no automatic ride starts; an
/// automatic ride still under way when its window ends is ended there (the rider's own rides, started
/// with ``RideTracker/start(rideID:at:)``, are not touched). The watchers of the still state stay on:
/// they cost next to nothing, and they are what lets the app notice movement once a window opens.
///
/// iOS does not run a suspended or terminated app at a chosen time, so a window that opens while the
/// app is not running takes effect at the app's next wake: a location event, a heartbeat
/// (``Heartbeat``, which asks for its next wake at the window's start), or the user opening the app.
/// A window that ends while the app is suspended ends its ride at the next wake, with the window's end
/// as the time the ride stopped being recorded.
///
/// ```swift
/// let office = try TrackingWindows.daily(days: [2, 3, 4, 5, 6], from: "08:00", to: "18:00",
///                                        timeZone: TimeZone(identifier: "Europe/Ljubljana")!)
/// var ride = RideTracker.Configuration()
/// ride.automatic = AutomaticTracking(enabled: true)
/// ride.automatic.windows = office
/// ```
///
/// Days are `Calendar` weekdays of the Gregorian calendar: 1 is Sunday, 2 Monday, … 7 Saturday.
/// Times are minutes after midnight in ``timeZone``; a window may end at 24:00 but not run past
/// midnight (give two windows for a night shift). A `Sendable` value type.
public struct TrackingWindows: Hashable, Sendable, Codable {
    /// One window: the same hours on each of some weekdays.
    public struct Window: Hashable, Sendable, Codable {
        /// The weekdays it applies to (1 Sunday … 7 Saturday).
        public var weekdays: Set<Int>
        /// Its start, minutes after midnight (0…1439).
        public var startMinute: Int
        /// Its end, minutes after midnight (after the start, at most 1440).
        public var endMinute: Int

        /// Makes a window.
        /// - throws: ``TrackingWindows/Error`` naming the field when a weekday is outside 1…7, there
        ///   is none, or the start and end are not `0 ≤ start < end ≤ 1440`.
        public init(weekdays: Set<Int>, startMinute: Int, endMinute: Int) throws(TrackingWindows.Error) {
            guard !weekdays.isEmpty else { throw .init(field: "weekdays", "a window needs at least one weekday") }
            if let bad = weekdays.sorted().first(where: { !(1...7).contains($0) }) {
                throw .init(field: "weekdays", "\(bad) is not a weekday (1 is Sunday, 7 Saturday)")
            }
            guard (0..<1440).contains(startMinute) else {
                throw .init(field: "startMinute", "\(startMinute) is not a minute of the day (0…1439)")
            }
            guard endMinute > startMinute, endMinute <= 1440 else {
                throw .init(field: "endMinute", "\(endMinute) must be after the start (\(startMinute)) and at most 1440 (24:00); split a window that runs past midnight in two")
            }
            self.weekdays = weekdays
            self.startMinute = startMinute
            self.endMinute = endMinute
        }
    }

    /// Why a window could not be made: the field, and what is wrong with it.
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        /// The field that is wrong (`weekdays`, `startMinute`, `endMinute`, `from`, `to`, `windows`).
        public var field: String
        /// What is wrong with it.
        public var reason: String

        init(field: String, _ reason: String) {
            self.field = field
            self.reason = reason
        }

        /// "tracking window field: reason".
        public var description: String { "tracking window \(field): \(reason)" }
    }

    /// The windows; tracking is allowed inside any of them.
    public var windows: [Window]
    /// The time zone the windows' hours are in (the user's, as a rule).
    public var timeZone: TimeZone

    /// Makes a set of windows.
    /// - throws: ``Error`` for an empty list.
    public init(_ windows: [Window], timeZone: TimeZone = .current) throws(TrackingWindows.Error) {
        guard !windows.isEmpty else { throw .init(field: "windows", "give at least one window, or no TrackingWindows at all to track at any time") }
        self.windows = windows
        self.timeZone = timeZone
    }

    /// The same hours on each of `days`, from `from` to `to` written as `"HH:mm"` (`"24:00"` allowed as an end).
    /// - throws: ``Error`` naming `from` or `to` when a time is not `HH:mm`, or as ``Window/init(weekdays:startMinute:endMinute:)``.
    public static func daily(days: Set<Int>, from: String, to: String, timeZone: TimeZone = .current) throws(TrackingWindows.Error) -> TrackingWindows {
        let start = try minute(of: from, field: "from")
        let end = try minute(of: to, field: "to")
        return try TrackingWindows([Window(weekdays: days, startMinute: start, endMinute: end)], timeZone: timeZone)
    }

    static func minute(of text: String, field: String) throws(TrackingWindows.Error) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...24).contains(hours), (0..<60).contains(minutes),
              hours < 24 || minutes == 0 else {
            throw .init(field: field, "\"\(text)\" is not a time of day as HH:mm (00:00…24:00)")
        }
        return hours * 60 + minutes
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// Whether `date` is inside a window.
    public func contains(_ date: Date) -> Bool {
        // The wall clock's hour and minute, so that a window keeps its hours across daylight-saving changes.
        let parts = calendar.dateComponents([.weekday, .hour, .minute, .second, .nanosecond], from: date)
        guard let weekday = parts.weekday else { return false }
        let minute = Double((parts.hour ?? 0) * 60 + (parts.minute ?? 0))
            + (Double(parts.second ?? 0) + Double(parts.nanosecond ?? 0) / 1e9) / 60
        return windows.contains { $0.weekdays.contains(weekday) && Double($0.startMinute) <= minute && minute < Double($0.endMinute) }
    }

    /// The first time after `date` at which ``contains(_:)`` changes (a window opens or closes); nil
    /// only if none does within the next eight days (which cannot happen for valid windows).
    public func nextChange(after date: Date) -> Date? {
        let inside = contains(date)
        return boundaries(after: date).first { contains($0) != inside }
    }

    /// The next time after `date` at which a window opens (nil as for ``nextChange(after:)``).
    public func nextStart(after date: Date) -> Date? {
        boundaries(after: date).first { contains($0) && !contains($0.addingTimeInterval(-1)) }
    }

    /// Every window start and end after `date` within eight days, in order (times on the wall
    /// clock, so daylight-saving changes move them with it).
    private func boundaries(after date: Date) -> [Date] {
        let calendar = calendar
        let today = calendar.startOfDay(for: date)
        var result: [Date] = []
        for offset in 0...8 {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today) else { continue }
            let weekday = calendar.component(.weekday, from: day)
            for window in windows where window.weekdays.contains(weekday) {
                for minute in [window.startMinute, window.endMinute] {
                    let wall = minute == 1440 ? calendar.date(byAdding: .day, value: 1, to: day)
                        : calendar.date(bySettingHour: minute / 60, minute: minute % 60, second: 0, of: day)
                    guard let time = wall, time > date else { continue }
                    result.append(time)
                }
            }
        }
        return result.sorted()
    }
}
