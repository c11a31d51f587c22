import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// The heartbeat component (issue #32 item 4): what it asks of iOS's app-refresh scheduler at a
/// launch, at a wake, at a fix, at its timeout, at an expiry and after a refusal.
@Suite("Heartbeat (app-refresh wakes)")
struct HeartbeatTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let id = "com.example.heartbeat"

    static func fix(at date: Date, accuracy: Double = 30) -> Fix {
        Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), horizontalAccuracy: accuracy, timestamp: date, source: .wifi)
    }

    @Test("off without a task identifier: nothing is scheduled and nothing is asked for")
    func off() {
        var beat = Heartbeat()
        let out = beat.handle(.launched(reason: .user), at: Self.t0)
        #expect(out.commands.isEmpty && out.updates.isEmpty)
        #expect(beat.handle(.appRefresh(identifier: Self.id), at: Self.t0).updates.isEmpty)
        #expect(beat.demand == .none)
    }

    @Test("a launch asks for a wake one interval on; a wake asks for one fix; a good fix ends the beat, asks for the next wake, then completes the task")
    func wakeAndBeat() throws {
        var beat = Heartbeat(configuration: .init(taskIdentifier: Self.id, interval: 900))
        #expect(beat.handle(.launched(reason: .user), at: Self.t0).commands
                == [.scheduleAppRefresh(identifier: Self.id, earliestBegin: Self.t0 + 900)])
        let wake = Self.t0 + 3_000
        let woke = beat.handle(.appRefresh(identifier: Self.id), at: wake)
        #expect(woke.updates == [.woke(at: wake)])
        #expect(beat.demand == .oneFix(.hundredMeters))
        #expect(beat.nextDeadline == wake + 20)
        // Another task's wake is not the heartbeat's.
        #expect(beat.handle(.appRefresh(identifier: "other"), at: wake).updates.isEmpty)
        let fix = Self.fix(at: wake + 4)
        let out = beat.handle(.locations([fix]), at: wake + 4)
        #expect(out.commands == [.scheduleAppRefresh(identifier: Self.id, earliestBegin: wake + 4 + 900),
                                 .completeAppRefresh(identifier: Self.id, success: true)])
        guard case .beat(let result)? = out.updates.first else { Issue.record("no beat: \(out.updates)"); return }
        #expect(result.fix == fix && !result.expired && result.wokeAt == wake && result.next == wake + 904)
        #expect(beat.demand == .none && beat.nextDeadline == nil && beat.beats == 1)
    }

    @Test("a fix too coarse waits; at the timeout the beat ends with the best fix seen, or with none")
    func timeout() {
        var beat = Heartbeat(configuration: .init(taskIdentifier: Self.id, accuracy: .nearestTenMeters, fixTimeout: 15))
        _ = beat.handle(.appRefresh(identifier: Self.id), at: Self.t0)
        let coarse = Self.fix(at: Self.t0 + 2, accuracy: 65)
        #expect(beat.handle(.locations([coarse]), at: Self.t0 + 2).commands.isEmpty, "65 m is not the 25 m a ten-metre request wants")
        #expect(beat.deadlineReached(at: Self.t0 + 10).updates.isEmpty, "not yet due")
        let out = beat.deadlineReached(at: Self.t0 + 15)
        guard case .beat(let result)? = out.updates.first else { Issue.record("no beat"); return }
        #expect(result.fix == coarse && !result.expired)
        #expect(out.commands.last == .completeAppRefresh(identifier: Self.id, success: true))

        _ = beat.handle(.appRefresh(identifier: Self.id), at: Self.t0 + 5_000)
        let none = beat.deadlineReached(at: Self.t0 + 5_015)
        guard case .beat(let empty)? = none.updates.first else { Issue.record("no beat"); return }
        #expect(empty.fix == nil)
    }

    @Test("a recent fix (a ride's) answers the wake at once; an old one does not")
    func cachedFix() {
        var beat = Heartbeat(configuration: .init(taskIdentifier: Self.id, maximumFixAge: 60))
        _ = beat.handle(.locations([Self.fix(at: Self.t0)]), at: Self.t0)
        let soon = beat.handle(.appRefresh(identifier: Self.id), at: Self.t0 + 30)
        #expect(soon.updates.count == 2 && soon.commands.last == .completeAppRefresh(identifier: Self.id, success: true))
        let late = beat.handle(.appRefresh(identifier: Self.id), at: Self.t0 + 600)
        #expect(late.updates == [.woke(at: Self.t0 + 600)] && late.commands.isEmpty)
    }

    @Test("an expiry ends the beat at once: the next wake is asked for first, then the task completes as unsuccessful")
    func expiry() {
        var beat = Heartbeat(configuration: .init(taskIdentifier: Self.id, interval: 600))
        _ = beat.handle(.appRefresh(identifier: Self.id), at: Self.t0)
        let out = beat.handle(.appRefreshExpired(identifier: Self.id), at: Self.t0 + 30)
        #expect(out.commands == [.scheduleAppRefresh(identifier: Self.id, earliestBegin: Self.t0 + 630),
                                 .completeAppRefresh(identifier: Self.id, success: false)])
        guard case .beat(let result)? = out.updates.first else { Issue.record("no beat"); return }
        #expect(result.expired && result.fix == nil)
    }

    @Test("a refusal is published and not asked again until the app comes to the foreground")
    func refusal() {
        var beat = Heartbeat(configuration: .init(taskIdentifier: Self.id))
        let out = beat.handle(.appRefreshRefused(identifier: Self.id, reason: .unavailable), at: Self.t0)
        #expect(out.updates == [.refused(.unavailable)] && beat.refused)
        #expect(beat.handle(.launched(reason: .background), at: Self.t0 + 1).commands.isEmpty)
        #expect(beat.handle(.willEnterForeground, at: Self.t0 + 2).commands.count == 1)
        #expect(!beat.refused)
    }

    @Test("with tracking windows the next wake is asked for at the window's start when the interval ends outside it")
    func windows() throws {
        let utc = TimeZone(identifier: "UTC")!
        let windows = try TrackingWindows.daily(days: Set(1...7), from: "08:00", to: "18:00", timeZone: utc)
        let beat = Heartbeat(configuration: .init(taskIdentifier: Self.id, interval: 3_600), windows: windows)
        let calendar = { var c = Calendar(identifier: .gregorian); c.timeZone = utc; return c }()
        let day = calendar.startOfDay(for: Self.t0)
        #expect(beat.nextWake(after: day + 9 * 3_600) == day + 10 * 3_600, "inside: one interval on")
        #expect(beat.nextWake(after: day + 17.5 * 3_600) == day + 32 * 3_600, "18:30 is outside: the next day's 08:00")
        #expect(beat.nextWake(after: day + 2 * 3_600) == day + 8 * 3_600, "03:00 is outside: today's 08:00")
    }

    @Test("a configuration outside the contract names every field")
    func contract() {
        let bad = Heartbeat.Configuration(taskIdentifier: "", interval: -1, fixTimeout: 45, maximumFixAge: .nan)
        let problems = bad.contractViolations
        #expect(problems.count == 4)
        #expect(problems.contains { $0.hasPrefix("taskIdentifier") } && problems.contains { $0.hasPrefix("fixTimeout") })
    }

    @Test("an engine configuration with a heartbeat needs its identifier permitted and the fetch mode (Info.plist check)")
    func capabilities() {
        var configuration = EngineCore.Configuration()
        configuration.heartbeat = .init(taskIdentifier: Self.id)
        #expect(configuration.capabilities.appRefreshTaskIdentifiers == [Self.id])
        let made = EngineCore.Configuration(heartbeat: .init(taskIdentifier: Self.id))
        #expect(made.capabilities.appRefreshTaskIdentifiers == [Self.id])
        let problems = InfoPlistCheck.problems(in: [:], for: made.capabilities)
        #expect(problems.map(\.kind).contains(.missingBackgroundMode("fetch")))
        #expect(problems.map(\.kind).contains(.missingPermittedTaskIdentifier(Self.id)))
    }
}

/// Tracking windows (issue #32 item 4): which times are inside, the next change, the next start,
/// daylight-saving days, and errors that name the field.
@Suite("Tracking windows")
struct TrackingWindowsTests {
    static let ljubljana = TimeZone(identifier: "Europe/Ljubljana")!

    static func date(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    @Test("weekdays 08:00–18:00: inside and outside, the next change and the next start")
    func weekdays() throws {
        let office = try TrackingWindows.daily(days: [2, 3, 4, 5, 6], from: "08:00", to: "18:00", timeZone: Self.ljubljana)
        // Friday 27 November 2026, local time UTC+1.
        #expect(office.contains(Self.date("2026-11-27T07:00:00Z")))            // 08:00 local
        #expect(!office.contains(Self.date("2026-11-27T06:59:59Z")))
        #expect(!office.contains(Self.date("2026-11-27T17:00:00Z")))           // 18:00 local: the end is outside
        #expect(office.nextChange(after: Self.date("2026-11-27T10:00:00Z")) == Self.date("2026-11-27T17:00:00Z"))
        // Saturday and Sunday are outside: from Friday evening the next start is Monday 08:00.
        #expect(!office.contains(Self.date("2026-11-28T10:00:00Z")))
        #expect(office.nextStart(after: Self.date("2026-11-27T18:00:00Z")) == Self.date("2026-11-30T07:00:00Z"))
        #expect(office.nextChange(after: Self.date("2026-11-27T18:00:00Z")) == Self.date("2026-11-30T07:00:00Z"))
    }

    @Test("a window keeps its wall-clock hours across the spring daylight-saving change")
    func daylightSaving() throws {
        let mornings = try TrackingWindows.daily(days: Set(1...7), from: "08:00", to: "09:00", timeZone: Self.ljubljana)
        // Sunday 29 March 2026: clocks go from UTC+1 to UTC+2 at 02:00.
        #expect(mornings.contains(Self.date("2026-03-29T06:30:00Z")))          // 08:30 CEST
        #expect(!mornings.contains(Self.date("2026-03-29T07:30:00Z")))         // 09:30 CEST
        #expect(mornings.nextStart(after: Self.date("2026-03-29T00:00:00Z")) == Self.date("2026-03-29T06:00:00Z"))
    }

    @Test("a window to 24:00 ends at midnight; a bad window is refused naming its field")
    func edgesAndErrors() throws {
        let evenings = try TrackingWindows.daily(days: [7], from: "20:00", to: "24:00", timeZone: TimeZone(identifier: "UTC")!)
        #expect(evenings.contains(Self.date("2026-11-28T23:59:59Z")))
        #expect(!evenings.contains(Self.date("2026-11-29T00:00:00Z")))
        #expect(evenings.nextChange(after: Self.date("2026-11-28T21:00:00Z")) == Self.date("2026-11-29T00:00:00Z"))
        #expect(throws: TrackingWindows.Error(field: "from", "\"8:00\" is not a time of day as HH:mm (00:00…24:00)")) {
            try TrackingWindows.daily(days: [2], from: "8:00", to: "18:00")
        }
        #expect(throws: TrackingWindows.Error.self) { try TrackingWindows.daily(days: [2], from: "18:00", to: "08:00") }
        do {
            _ = try TrackingWindows.Window(weekdays: [0, 3], startMinute: 0, endMinute: 60)
            Issue.record("weekday 0 was accepted")
        } catch {
            #expect(error.field == "weekdays" && error.reason.contains("0"))
        }
        #expect(throws: TrackingWindows.Error.self) { try TrackingWindows([]) }
    }
}
