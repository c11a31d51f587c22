/// Merges the components' ``LocationDemand``s into one device configuration and emits only the
/// commands that change what the device is doing.
///
/// Merging takes the finest accuracy, the smallest distance filter (nil, "every fix", is the
/// smallest), background if anyone needs it, no automatic pausing if anyone objects, the activity
/// type of the finest demand that states the activity (a ride's, never a geofence tracker's while
/// another demand states one; see ``mergedActivityType(_:)``), and the union of services. A demand
/// that the device already satisfies produces no command, so standard updates start exactly once
/// however many times a component restates the same demand.
///
/// ```swift
/// var resolver = DemandResolver()
/// resolver.resolve([.standard(StandardDemand(accuracy: .best)), .none])  // [.startUpdatingLocation(...)]
/// resolver.resolve([.standard(StandardDemand(accuracy: .best))])         // []
/// resolver.resolve([.none])                                              // [.stopUpdatingLocation]
/// ```
///
/// A `Sendable` value type; not shared between tasks (the ``Engine`` owns one).
public struct DemandResolver: Hashable, Sendable {
    /// The standard-updates configuration the device runs now, if any.
    public private(set) var runningStandard: LocationConfiguration?
    /// Whether significant-change monitoring is on; nil when unknown (it persists across launches).
    public private(set) var significantChangesOn: Bool?
    /// How many `startUpdatingLocation` commands were emitted (starts and reconfigurations).
    public private(set) var standardStarts = 0
    private var oneFixPending: DesiredAccuracy?
    /// Standard updates the OS refused, not asked for again until ``deviceMayStartAgain()``.
    private var refusedStandard: LocationConfiguration?

    /// Makes a resolver for a fresh process: nothing running, significant changes unknown.
    public init() {}

    /// The merged standard configuration of `demands`, or nil when none asks for standard updates.
    public static func mergedStandard(_ demands: [LocationDemand]) -> LocationConfiguration? {
        let standards = demands.compactMap { if case .standard(let s) = $0 { s } else { nil } }
        guard let finest = standards.min(by: { $0.accuracy.fineness < $1.accuracy.fineness }) else { return nil }
        let filters = standards.map(\.distanceFilterMeters)
        let filter: Double? = filters.contains(where: { $0 == nil }) ? nil : filters.compactMap { $0 }.min()
        return LocationConfiguration(desiredAccuracy: finest.accuracy, distanceFilterMeters: filter,
                                     activityType: mergedActivityType(standards),
                                     pausesLocationUpdatesAutomatically: standards.allSatisfy(\.pausesAutomatically),
                                     allowsBackgroundLocationUpdates: standards.contains(where: \.background))
    }

    /// The activity type of merging `standards`: the finest demand's among those that state the
    /// activity (``StandardDemand/statesActivity``), the first of them at equal accuracy; only when
    /// none does, the finest demand's.
    ///
    /// The geofence trackers watch boundaries and state no activity, so a ride's `.fitness` holds
    /// whatever accuracy they ask for. The type tells iOS what the movement is, which sets when it
    /// pauses updates (`activityType`, `pausesLocationUpdatesAutomatically`) and, with the iOS 17
    /// backend, which `CLLocationUpdate.LiveConfiguration` the updates are iterated with. A new
    /// configuration means a new iteration, so a type that followed whichever component wants the
    /// finer accuracy restarted the ride's live updates each time a tracker came near a boundary
    /// or rested its GNSS.
    public static func mergedActivityType(_ standards: [StandardDemand]) -> ActivityType {
        let stating = standards.filter(\.statesActivity)
        let candidates = stating.isEmpty ? standards : stating
        return candidates.min(by: { $0.accuracy.fineness < $1.accuracy.fineness })?.activityType ?? .other
    }

    /// Returns the commands that move the device from its current configuration to the merge of `demands`.
    public mutating func resolve(_ demands: [LocationDemand]) -> [DeviceCommand] {
        var commands: [DeviceCommand] = []
        let standard = Self.mergedStandard(demands)
        if standard != runningStandard, standard == nil || standard != refusedStandard {
            if let standard {
                commands.append(.startUpdatingLocation(standard))
                standardStarts += 1
            } else {
                commands.append(.stopUpdatingLocation)
            }
            runningStandard = standard
        }
        let wantsSignificant = demands.contains(.significantChanges)
        if wantsSignificant, significantChangesOn != true {
            commands.append(.startSignificantChanges)
        } else if !wantsSignificant, significantChangesOn == true {
            commands.append(.stopSignificantChanges)
        }
        if wantsSignificant || significantChangesOn != nil { significantChangesOn = wantsSignificant }
        let oneFix = demands.compactMap { if case .oneFix(let a) = $0 { a } else { nil } }
            .min(by: { $0.fineness < $1.fineness })
        if let oneFix, oneFixPending == nil, standard == nil {
            commands.append(.requestLocation(oneFix))
        }
        oneFixPending = standard == nil ? oneFix : nil
        return commands
    }

    /// Records that the OS refused or stopped standard updates (`CLError.denied`: authorization
    /// lost, or a when-in-use app starting them while not in use). The same configuration is not
    /// asked for again until ``deviceMayStartAgain()``, so a refusal is not retried in a loop; a
    /// different configuration is started at once.
    public mutating func deviceStoppedStandardUpdates() {
        refusedStandard = runningStandard
        runningStandard = nil
    }

    /// The app may start services again (it came to the foreground, the authorization changed, or
    /// a location event woke it): the next resolution asks again for a refused configuration.
    public mutating func deviceMayStartAgain() {
        refusedStandard = nil
    }
}
