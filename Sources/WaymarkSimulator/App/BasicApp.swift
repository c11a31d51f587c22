import Foundation
import WaymarkEngine

/// A deliberately naive app for running scenarios without the engine: at launch it creates its
/// location manager and fires every configured permission request at once (so prompt collisions
/// show up), then starts the configured services whenever it is authorized. After an automatic
/// pause it starts standard updates again on the next location event (a significant change or a
/// region exit) or when it returns to the foreground, as iOS requires.
///
/// ```swift
/// var sim = try Simulation(scenario: scenario, app: BasicApp(.init(requests: [.locationWhenInUse])))
/// sim.runToEnd()
/// ```
///
/// A `Sendable` value type.
public struct BasicApp: SimulatedApp {
    /// What the app does; every field optional in scenario JSON (`"app": {...}`).
    public struct Configuration: Hashable, Sendable, Codable {
        /// Permission prompts requested at launch, all at once; notifications and when-in-use when absent.
        public var requests: [PromptKind]?
        /// Desired accuracy of standard updates; `best` when absent. Null-like `none` is not offered: omit `startUpdates`.
        public var accuracy: DesiredAccuracy?
        /// Whether to start standard updates when authorized; true when absent.
        public var startUpdates: Bool?
        /// Distance filter in metres.
        public var distanceFilterMeters: Double?
        /// Activity type; `other` when absent.
        public var activityType: ActivityType?
        /// `pausesLocationUpdatesAutomatically`; true when absent.
        public var pausesAutomatically: Bool?
        /// `allowsBackgroundLocationUpdates`; false when absent.
        public var backgroundUpdates: Bool?
        /// Start significant-change monitoring when authorized.
        public var significantChanges: Bool?
        /// Regions to monitor when authorized.
        public var regions: [MonitoredRegion]?
        /// Start motion-activity updates at launch.
        public var motionUpdates: Bool?

        /// Makes a configuration.
        public init(requests: [PromptKind]? = nil, accuracy: DesiredAccuracy? = nil, startUpdates: Bool? = nil,
                    distanceFilterMeters: Double? = nil, activityType: ActivityType? = nil,
                    pausesAutomatically: Bool? = nil, backgroundUpdates: Bool? = nil, significantChanges: Bool? = nil,
                    regions: [MonitoredRegion]? = nil, motionUpdates: Bool? = nil) {
            self.requests = requests
            self.accuracy = accuracy
            self.startUpdates = startUpdates
            self.distanceFilterMeters = distanceFilterMeters
            self.activityType = activityType
            self.pausesAutomatically = pausesAutomatically
            self.backgroundUpdates = backgroundUpdates
            self.significantChanges = significantChanges
            self.regions = regions
            self.motionUpdates = motionUpdates
        }
    }

    /// The configuration.
    public let configuration: Configuration
    private var pausedByTheSystem = false

    /// Makes the app.
    public init(_ configuration: Configuration = Configuration()) { self.configuration = configuration }

    private var locationConfiguration: LocationConfiguration {
        LocationConfiguration(desiredAccuracy: configuration.accuracy ?? .best,
                              distanceFilterMeters: configuration.distanceFilterMeters,
                              activityType: configuration.activityType ?? .other,
                              pausesLocationUpdatesAutomatically: configuration.pausesAutomatically ?? true,
                              allowsBackgroundLocationUpdates: configuration.backgroundUpdates ?? false)
    }

    public mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        switch event {
        case .launched(let reason):
            var commands: [DeviceCommand] = [.createLocationManager]
            guard reason == .user else { return commands }
            for request in configuration.requests ?? [.notifications, .locationWhenInUse] {
                switch request {
                case .notifications: commands += [.requestNotificationAuthorization([.alert, .sound, .badge])]
                case .locationWhenInUse: commands.append(.requestWhenInUseAuthorization)
                case .locationAlways: commands.append(.requestAlwaysAuthorization)
                case .motion: commands.append(.requestMotionPermission)
                case .temporaryFullAccuracy: commands.append(.requestTemporaryFullAccuracy(purposeKey: "BasicApp"))
                }
            }
            if configuration.motionUpdates == true { commands.append(.startMotionActivityUpdates) }
            return commands
        case .notificationAuthorization(granted: true):
            return [.registerForRemoteNotifications]
        case .authorizationChanged(let auth) where auth.status == .authorizedWhenInUse || auth.status == .authorizedAlways:
            var commands: [DeviceCommand] = []
            if configuration.startUpdates ?? true { commands.append(.startUpdatingLocation(locationConfiguration)) }
            if configuration.significantChanges == true { commands.append(.startSignificantChanges) }
            for region in configuration.regions ?? [] { commands.append(.startMonitoring(region)) }
            return commands
        case .locationUpdatesPaused:
            pausedByTheSystem = true
            return []
        case .locationUpdatesResumed:
            pausedByTheSystem = false
            return []
        case .significantChange, .regionExited, .willEnterForeground:
            guard pausedByTheSystem else { return [] }
            pausedByTheSystem = false
            return [.startUpdatingLocation(locationConfiguration)]
        default:
            return []
        }
    }
}
