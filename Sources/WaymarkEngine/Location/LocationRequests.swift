import Foundation
import WaymarkGeo

/// On-demand location outside a ride: one fix for ``EngineLocation/current(accuracy:maximumAge:timeout:)``,
/// and streams of fixes for ``EngineLocation/updates(accuracy:distanceFilterMeters:)``.
///
/// Both share the app's one location session: the component only states a demand (standard updates
/// at the finest accuracy any open request or stream asks for), and the engine's ``DemandResolver``
/// merges it with the launch locator's, the geofences' and the ride's. While a ride records at best
/// accuracy, a request is served by the ride's fixes and issues no command at all; when the last
/// request or stream ends, the demand goes and the resolver stops the updates nobody else wants.
/// There is never a second location manager, and never a prompt: a request without authorization
/// fails at once (``LocationRequestError/Reason/notAuthorized``), and the app asks through
/// ``EnginePermissions`` (the sequencer), as for everything else.
///
/// A request is answered by:
/// - the most recent fix the engine has seen, when it is at most `maximumAge` old and accurate enough
///   (no radio at all);
/// - else the first fresh fix (taken after the request, or at most `maximumAge` before it) whose
///   horizontal accuracy is within ``acceptableMeters(for:)`` of the accuracy asked for;
/// - at the timeout, the most accurate fresh fix seen meanwhile (``LocationRequestError/Reason/timedOut``
///   when there was none).
///
/// Fixes reach it from every source the engine hears: standard updates (the ride's too), a live
/// update, the launch fix, significant changes and visits only refresh the cached fix.
///
/// A pure state machine and a `Sendable` value type, owned by the ``EngineCore``.
public struct LocationRequests: Sendable {
    /// What a step tells the engine.
    public enum Update: Hashable, Sendable {
        /// The request with this identifier is answered.
        case completed(id: Int, Result<Fix, LocationRequestError>)
        /// A fix for the stream with this identifier.
        case fix(streamID: Int, Fix)
    }

    /// The output type of every step.
    public typealias Output = ComponentOutput<Update>

    struct Pending: Hashable, Sendable {
        var id: Int
        var accuracy: DesiredAccuracy
        var maximumAge: TimeInterval
        var askedAt: Date
        var deadline: Date
        var best: Fix?
    }

    struct Stream: Hashable, Sendable {
        var id: Int
        var accuracy: DesiredAccuracy
        var distanceFilterMeters: Double?
        var lastDelivered: Fix?
    }

    private(set) var pending: [Pending] = []
    private(set) var streams: [Stream] = []
    /// The most recent fix the engine has seen, from any source.
    public private(set) var lastFix: Fix?
    /// The latest authorization callback.
    public private(set) var authorization: LocationAuthorization?

    /// Makes an idle component.
    public init() {}

    /// The horizontal accuracy, in metres, a fix needs to answer a request for `accuracy` before
    /// its timeout: what iOS's own settings aim at (Apple, `kCLLocationAccuracy…`), with GNSS's
    /// usual 5–20 m for the two best.
    public static func acceptableMeters(for accuracy: DesiredAccuracy) -> Double {
        switch accuracy {
        case .bestForNavigation, .best: 20
        case .nearestTenMeters: 25
        case .hundredMeters: 100
        case .kilometer: 1_000
        case .threeKilometers: 3_000
        case .reduced: 10_000
        }
    }

    /// The demand: standard updates at the finest accuracy open requests and streams ask for, in
    /// the foreground only; none when nothing is open.
    public var demand: LocationDemand {
        let wanted = pending.map(\.accuracy) + streams.map(\.accuracy)
        guard let finest = wanted.min(by: { Self.rank($0) < Self.rank($1) }) else { return .none }
        let filter = pending.isEmpty ? streams.compactMap(\.distanceFilterMeters).min() : nil
        return .standard(StandardDemand(accuracy: finest, distanceFilterMeters: filter))
    }

    /// When to call ``deadlineReached(at:)``: the earliest request timeout.
    public var nextDeadline: Date? { pending.map(\.deadline).min() }

    /// Whether a request or stream is open.
    public var isActive: Bool { !pending.isEmpty || !streams.isEmpty }

    /// Asks for one fix. Answered in this step from the cached fix when it is recent and accurate
    /// enough, or refused when location is not authorized; otherwise when a fix comes or at the timeout.
    public mutating func request(id: Int, accuracy: DesiredAccuracy, maximumAge: TimeInterval, timeout: TimeInterval,
                                 at now: Date) -> Output {
        if let refusal = refusal() { return Output(updates: [.completed(id: id, .failure(refusal))]) }
        let item = Pending(id: id, accuracy: accuracy, maximumAge: max(0, maximumAge), askedAt: now,
                           deadline: now.addingTimeInterval(max(0, timeout)), best: nil)
        if let cached = lastFix, Self.answers(cached, item) {
            return Output(updates: [.completed(id: id, .success(cached))])
        }
        pending.append(item)
        return Output()
    }

    /// Gives up a request (its task was cancelled): answered with ``LocationRequestError/Reason/cancelled``.
    public mutating func cancel(id: Int) -> Output {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return Output() }
        pending.remove(at: index)
        return Output(updates: [.completed(id: id, .failure(LocationRequestError(.cancelled, "the request was cancelled")))])
    }

    /// Opens a stream of fixes at `accuracy`, at most one per `distanceFilterMeters` of movement.
    public mutating func openStream(id: Int, accuracy: DesiredAccuracy, distanceFilterMeters: Double?) -> Output {
        streams.append(Stream(id: id, accuracy: accuracy, distanceFilterMeters: distanceFilterMeters.map { max(0, $0) }))
        return Output()
    }

    /// Closes a stream (its consumer went away).
    public mutating func closeStream(id: Int) {
        streams.removeAll { $0.id == id }
    }

    /// Takes one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        var updates: [Update] = []
        switch event {
        case .authorizationChanged(let auth):
            authorization = auth
            if let refusal = refusal() {
                updates += pending.map { .completed(id: $0.id, .failure(refusal)) }
                pending = []
            }
        case .locations(let fixes):
            for fix in fixes { take(fix, live: true, into: &updates) }
        case .significantChange(let fix):
            take(fix, live: false, into: &updates)
        default:
            break
        }
        return Output(updates: updates)
    }

    /// The timeouts that came: each answered with the best fresh fix seen, or a timeout error.
    public mutating func deadlineReached(at now: Date) -> Output {
        var updates: [Update] = []
        pending.removeAll { item in
            guard item.deadline <= now else { return false }
            if let best = item.best {
                updates.append(.completed(id: item.id, .success(best)))
            } else {
                updates.append(.completed(id: item.id, .failure(LocationRequestError(
                    .timedOut, String(format: "no fix within %.0f s (asked for %@)", item.deadline.timeIntervalSince(item.askedAt),
                                      item.accuracy.rawValue)))))
            }
            return true
        }
        return Output(updates: updates)
    }

    // MARK: -

    private mutating func take(_ fix: Fix, live: Bool, into updates: inout [Update]) {
        if lastFix.map({ $0.timestamp <= fix.timestamp }) ?? true { lastFix = fix }
        guard live, fix.horizontalAccuracy.map({ $0 >= 0 }) ?? false else { return }
        pending.removeAll { item in
            guard Self.isFresh(fix, item) else { return false }
            if Self.answers(fix, item) {
                updates.append(.completed(id: item.id, .success(fix)))
                return true
            }
            return false
        }
        for index in pending.indices where Self.isFresh(fix, pending[index]) {
            if (fix.horizontalAccuracy ?? .infinity) < (pending[index].best?.horizontalAccuracy ?? .infinity) { pending[index].best = fix }
        }
        for index in streams.indices {
            let stream = streams[index]
            if let last = stream.lastDelivered, let filter = stream.distanceFilterMeters,
               Geodesy.haversineDistance(last.coordinate, fix.coordinate) < filter { continue }
            streams[index].lastDelivered = fix
            updates.append(.fix(streamID: stream.id, fix))
        }
    }

    private static func isFresh(_ fix: Fix, _ item: Pending) -> Bool {
        fix.timestamp >= item.askedAt.addingTimeInterval(-item.maximumAge)
    }

    private static func answers(_ fix: Fix, _ item: Pending) -> Bool {
        guard isFresh(fix, item), let accuracy = fix.horizontalAccuracy, accuracy >= 0 else { return false }
        return accuracy <= acceptableMeters(for: item.accuracy)
    }

    private func refusal() -> LocationRequestError? {
        guard let status = authorization?.status else { return nil }   // not heard yet: wait for it
        switch status {
        case .authorizedWhenInUse, .authorizedAlways: return nil
        case .notDetermined:
            return LocationRequestError(.notAuthorized, "location is not authorized yet: request it with engine.permissions first")
        case .denied: return LocationRequestError(.notAuthorized, "location is denied for this app (Settings)")
        case .restricted: return LocationRequestError(.notAuthorized, "location is restricted on this device")
        }
    }

    /// Finer accuracy ranks lower.
    private static func rank(_ accuracy: DesiredAccuracy) -> Int {
        DesiredAccuracy.allCases.firstIndex(of: accuracy) ?? 0
    }
}

/// Why a location request got no fix.
///
/// A `Sendable` error with a code and a message naming what to do.
public struct LocationRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Reason: String, Hashable, Sendable {
        /// Location is not authorized (not yet asked, denied or restricted): ask through the engine's permissions.
        case notAuthorized
        /// No usable fix came before the timeout.
        case timedOut
        /// The caller's task was cancelled.
        case cancelled
        /// The engine stopped before an answer.
        case stopped
    }

    /// The kind of failure.
    public var reason: Reason
    /// What happened, for a log or a developer.
    public var message: String

    /// Makes an error.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// `reason: message`.
    public var description: String { "\(reason.rawValue): \(message)" }
}
