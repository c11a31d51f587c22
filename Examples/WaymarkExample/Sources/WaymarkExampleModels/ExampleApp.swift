import WaymarkEngine

/// The example app's fixed choices: what it uses of iOS, what it asks for at first launch, and
/// how it configures the engine.
///
/// Both the iPhone app and the Linux tests read these, so the tests check the configuration that
/// ships (for example ``capabilities`` against the Info.plist, with `InfoPlistCheck`).
///
/// ```swift
/// let problems = InfoPlistCheck.problems(in: Bundle.main.infoDictionary ?? [:], for: ExampleApp.capabilities)
/// ```
public enum ExampleApp {
    /// What the app uses: the Always upgrade (a ride survives a termination only with it),
    /// location in the background (a ride records with the screen off) and motion activity (the
    /// ride's battery-aware policy reads it). No silent pushes and no `BGTaskScheduler` tasks.
    public static let capabilities = AppCapabilities(locationAlways: true, backgroundLocation: true, motion: true)

    /// The key of `NSLocationTemporaryUsageDescriptionDictionary` the Ride tab asks with when the
    /// user chose approximate location (`requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`).
    public static let fullAccuracyPurposeKey = "RideRecording"

    /// What the first launch asks, in this order and one at a time: notifications, then location
    /// while in use. The engine's ``PermissionSequencer`` shows the second prompt only after the
    /// first was answered (and the remote-registration token came), so the two never collide.
    public static let firstLaunchRequests: [PermissionRequest] = [.notifications([.alert, .sound, .badge]), .locationWhenInUse]

    /// What the first ride asks before it starts: the upgrade to Always, at most once per install
    /// (the engine's ``PermissionMemory`` remembers). The motion prompt follows from the ride
    /// itself, through the same sequencer.
    public static let rideRequests: [PermissionRequest] = [.locationAlwaysUpgrade]

    /// The engine configuration: Waymark's battery-aware ride policy (``RideAccuracyPolicy/waymark``:
    /// GNSS while moving, duty-cycled on steady stretches, cell-level while stopped), automatic
    /// tracking (a ride starts when the rider sets off and ends 10 minutes after they stopped; the
    /// Start and Stop buttons still work and win), and the usage descriptions the Info.plist
    /// declares, so a missing one is reported at once.
    ///
    /// - parameter declaredUsageDescriptions: from `InfoPlistCheck.declaredUsageDescriptions(in:)`
    ///   on a device; nil when unknown (the engine then reads them from the device).
    /// - parameter backend: the Core Location API (`CLLocationManager` by default, or the iOS 17 APIs).
    public static func engineConfiguration(declaredUsageDescriptions: Set<UsageDescriptionKey>? = nil,
                                           backend: LocationBackend = .locationManager) -> EngineCore.Configuration {
        EngineCore.Configuration(
            permissions: PermissionSequencer.Configuration(declaredUsageDescriptions: declaredUsageDescriptions),
            ride: RideTracker.Configuration(policy: .waymark,
                                            automatic: AutomaticTracking(enabled: true, stopTimeoutSeconds: 600,
                                                                         movingActivities: [.cycling, .running, .walking])),
            capabilities: capabilities, backend: backend)
    }
}
