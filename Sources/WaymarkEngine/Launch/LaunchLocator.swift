import Foundation
import WaymarkGeo

/// Gets one good fix per process launch, then releases location at once.
///
/// The locator starts when the user launches (or first opens) the app, waits for location
/// authorization, and then demands standard updates exactly once. It accepts the first fix that
/// is fresh (at most ``Configuration/maxFixAge`` old when it arrives: the cached fix iOS hands out on
/// start is minutes old and is rejected) and accurate (``Configuration/maxAccuracyMeters``); its
/// demand drops to ``LocationDemand/none`` in the same step, so the service is stopped with the
/// accepted fix. At the timeout it settles for the most accurate fresh fix within
/// ``Configuration/fallbackAccuracyMeters``, else ``LaunchLocationUnavailable/timeout``.
///
/// ```swift
/// var locator = LaunchLocator()
/// _ = locator.handle(.launched(reason: .user), at: t0)
/// let out = locator.handle(.authorizationChanged(.init(status: .authorizedWhenInUse)), at: t0)
/// // out.demand == .standard(...); feed fixes; state becomes .located(fix), demand .none
/// ```
///
/// A pure state machine and a `Sendable` value type; owned by one task.
public struct LaunchLocator: Sendable {
    /// Freshness, accuracy and timeout.
    public struct Configuration: Hashable, Sendable {
        /// Oldest acceptable fix age at arrival, in seconds (default 10).
        public var maxFixAge: TimeInterval
        /// Worst accepted horizontal accuracy, in metres (default 100).
        public var maxAccuracyMeters: Double
        /// How long to look for a fix once locating, in seconds (default 20).
        public var timeout: TimeInterval
        /// Worst accuracy, in metres, of a fresh fix taken at the timeout when nothing better came (default 1000).
        public var fallbackAccuracyMeters: Double
        /// The accuracy asked of the location service (default `best`).
        public var desiredAccuracy: DesiredAccuracy

        /// Makes a configuration.
        public init(maxFixAge: TimeInterval = 10, maxAccuracyMeters: Double = 100, timeout: TimeInterval = 20,
                    fallbackAccuracyMeters: Double = 1000, desiredAccuracy: DesiredAccuracy = .best) {
            self.maxFixAge = maxFixAge
            self.maxAccuracyMeters = maxAccuracyMeters
            self.timeout = timeout
            self.fallbackAccuracyMeters = fallbackAccuracyMeters
            self.desiredAccuracy = desiredAccuracy
        }
    }

    /// The output type of every step: state changes are the updates.
    public typealias Output = ComponentOutput<LaunchLocationState>

    /// The configuration in force.
    public let configuration: Configuration
    /// The current state.
    public private(set) var state: LaunchLocationState = .idle
    /// The latest authorization callback, nil before the first.
    public private(set) var authorization: LocationAuthorization?
    /// How many times this locator entered `locating` (at most once per launch).
    public private(set) var locatingStarts = 0
    private var deadline: Date?
    private var bestFallback: Fix?

    /// Makes a locator for one process.
    ///
    /// - precondition: `configuration`'s timeout is positive and finite, and its age and accuracy
    ///   limits are not negative (the message names every offending field).
    public init(configuration: Configuration = Configuration()) {
        var check = ContractCheck()
        check.finitePositive("timeout", configuration.timeout)
        check.nonNegative("maxFixAge", configuration.maxFixAge)
        check.nonNegative("maxAccuracyMeters", configuration.maxAccuracyMeters)
        check.nonNegative("fallbackAccuracyMeters", configuration.fallbackAccuracyMeters)
        ContractCheck.require(check.violations, in: "LaunchLocator.Configuration")
        self.configuration = configuration
    }

    /// When to call ``deadlineReached(at:)``; nil unless locating.
    public var nextDeadline: Date? { deadline }

    /// The locator's location demand: standard updates while locating, else none.
    public var demand: LocationDemand {
        state == .locating ? .standard(StandardDemand(accuracy: configuration.desiredAccuracy)) : .none
    }

    /// Starts the locator (normally done by `launched(reason: .user)` or the first `willEnterForeground`).
    public mutating func start(at now: Date) -> Output {
        var updates: [LaunchLocationState] = []
        if state == .idle { evaluate(at: now, updates: &updates) }
        return output(updates)
    }

    /// Handles one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        var updates: [LaunchLocationState] = []
        switch event {
        case .launched(reason: .user), .willEnterForeground:
            if state == .idle { evaluate(at: now, updates: &updates) }
        case .authorizationChanged(let auth):
            authorization = auth
            if state == .waitingForPermission || state == .locating { evaluate(at: now, updates: &updates) }
        case .locations(let fixes) where state == .locating:
            for fix in fixes where state == .locating { consider(fix, at: now, updates: &updates) }
        case .locationError(.denied) where state == .locating:
            set(.unavailable(.denied), updates: &updates)
        default:
            break
        }
        return output(updates)
    }

    /// Handles the timeout; does nothing before ``nextDeadline``.
    public mutating func deadlineReached(at now: Date) -> Output {
        var updates: [LaunchLocationState] = []
        if state == .locating, let deadline, now >= deadline {
            set(bestFallback.map(LaunchLocationState.located) ?? .unavailable(.timeout), updates: &updates)
        }
        return output(updates)
    }

    private func output(_ updates: [LaunchLocationState]) -> Output {
        Output(updates: updates, demand: demand)
    }

    /// Moves between waiting, locating and unavailable from the authorization known now.
    private mutating func evaluate(at now: Date, updates: inout [LaunchLocationState]) {
        guard let auth = authorization else {
            set(.waitingForPermission, updates: &updates)
            return
        }
        if !auth.servicesEnabled { set(.unavailable(.servicesDisabled), updates: &updates); return }
        switch auth.status {
        case .notDetermined:
            if state == .idle { set(.waitingForPermission, updates: &updates) }
        case .denied:
            set(.unavailable(.denied), updates: &updates)
        case .restricted:
            set(.unavailable(.restricted), updates: &updates)
        case .authorizedWhenInUse, .authorizedAlways:
            guard state != .locating else { return }
            locatingStarts += 1
            deadline = now.addingTimeInterval(configuration.timeout)
            set(.locating, updates: &updates)
        }
    }

    private mutating func consider(_ fix: Fix, at now: Date, updates: inout [LaunchLocationState]) {
        guard let accuracy = fix.horizontalAccuracy, accuracy >= 0,
              now.timeIntervalSince(fix.timestamp) <= configuration.maxFixAge else { return }
        if accuracy <= configuration.maxAccuracyMeters {
            set(.located(fix), updates: &updates)
        } else if accuracy <= configuration.fallbackAccuracyMeters,
                  accuracy <= (bestFallback?.horizontalAccuracy ?? .infinity) {
            bestFallback = fix
        }
    }

    private mutating func set(_ new: LaunchLocationState, updates: inout [LaunchLocationState]) {
        guard new != state else { return }
        state = new
        if new != .locating { deadline = nil }
        updates.append(new)
    }
}
