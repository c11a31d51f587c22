import Foundation
import WaymarkEngine
import WaymarkGeo

/// A rider going east along a line at a fixed speed, and helpers to drive a tracker with it.
enum Ride {
    static let origin = Date(timeIntervalSince1970: 1_767_254_400)
    static let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)

    static func at(_ seconds: Double) -> Date { origin.addingTimeInterval(seconds) }

    /// A GNSS fix `metres` east of the start, measured at `seconds`.
    static func fix(_ seconds: Double, east metres: Double, speed: Double, accuracy: Double = 6) -> Fix {
        Fix(coordinate: Geodesy.destination(from: start, bearing: 90, distance: metres), horizontalAccuracy: accuracy,
            speed: speed, course: 90, timestamp: at(seconds), source: .gnss)
    }
}

/// A tracker under test that keeps every update it published.
struct TrackerHarness {
    var tracker: RideTracker
    var updates: [RideUpdate] = []
    var commands: [DeviceCommand] = []

    init(_ tracker: RideTracker = RideTracker(configuration: TrackerHarness.steady)) { self.tracker = tracker }

    /// Waymark's defaults without duty cycling, so every fix of a steady test ride counts.
    static let steady: RideTracker.Configuration = {
        var c = RideTracker.Configuration()
        c.dutyCycle.enabled = false
        return c
    }()

    var recorded: [Fix] { updates.compactMap { if case .recorded(let f) = $0 { f } else { nil } } }
    var gaps: [GapMarker] { updates.compactMap { if case .gap(let g) = $0 { g } else { nil } } }
    var states: [RideState] { updates.compactMap { if case .state(let s) = $0 { s } else { nil } } }
    var lastSnapshot: RideSnapshot? { updates.compactMap { if case .checkpoint(let s) = $0 { s } else { nil } }.last }

    /// The standard-updates demand, if any.
    var standard: StandardDemand? {
        tracker.demands.compactMap { if case .standard(let s) = $0 { s } else { nil } }.first
    }

    mutating func absorb(_ out: RideTracker.Output) {
        updates += out.updates
        commands += out.commands
    }

    mutating func send(_ event: DeviceEvent, at seconds: Double) { absorb(tracker.handle(event, at: Ride.at(seconds))) }

    mutating func fire(at seconds: Double) { absorb(tracker.deadlineReached(at: Ride.at(seconds))) }

    /// Rides east at `speed` m/s from second `from` to `to` (one fix a second), starting `offset` metres east.
    mutating func ride(from: Int, to: Int, speed: Double, offset: Double = 0) {
        for t in from...to {
            send(.locations([Ride.fix(Double(t), east: offset + speed * Double(t - from), speed: speed)]), at: Double(t))
            if let due = tracker.nextDeadline, due <= Ride.at(Double(t)) { fire(at: Double(t)) }
        }
    }

    /// Stands still `east` metres from the start from second `from` to `to`.
    mutating func stand(from: Int, to: Int, east: Double) {
        for t in from...to {
            send(.locations([Ride.fix(Double(t), east: east, speed: 0)]), at: Double(t))
            if let due = tracker.nextDeadline, due <= Ride.at(Double(t)) { fire(at: Double(t)) }
        }
    }
}
