import Foundation
import WaymarkGeo

/// The engine's one view of the operating system: an ordered stream of events and a way to ask for things.
///
/// On an iPhone the live implementation wraps CoreLocation, UserNotifications, CoreMotion and the
/// app lifecycle; everywhere else `SimulatedDevice` (module `WaymarkSimulator`) reproduces those
/// behaviours on a virtual clock. Events arrive in the order the OS would report them, each with the
/// (possibly virtual) time at which it was reported.
///
/// ```swift
/// func run(on device: some Device) async {
///     await device.perform(.createLocationManager)
///     for await timed in device.events {
///         if case .authorizationChanged(let auth) = timed.event, auth.status == .notDetermined {
///             await device.perform(.requestWhenInUseAuthorization)
///         }
///     }
/// }
/// ```
///
/// Implementations must be safe to use from any task (`Sendable`).
public protocol Device: Sendable {
    /// Every event the app can observe, in order, each stamped with its time. Single consumer.
    var events: AsyncStream<TimedDeviceEvent> { get }

    /// Asks the OS for something; the outcome, if any, arrives later as an event.
    func perform(_ command: DeviceCommand) async

    /// The device's current time (virtual on a simulator).
    func now() async -> Date

    /// What the app declares in its Info.plist (the simulator: its scenario's declarations). The
    /// engine reads it once, when it starts (see ``EngineDiagnostics``). A device that cannot tell
    /// returns nil: the engine then reports no configuration problems and waits for prompts as if
    /// every key were declared. A device that wraps another forwards it.
    func infoPlist() async -> InfoPlistDeclarations?

    /// The identifiers of every region the OS monitors for the app now, the host app's included
    /// (iOS: `CLLocationManager.monitoredRegions`, which persists across launches); nil when the
    /// device cannot tell. The engine reads them at each launch and reconciles its stored regions:
    /// a Waymark region the OS lost is registered again, one it no longer knows is stopped.
    func monitoredRegionIdentifiers() async -> Set<String>?

    /// The circular region the OS monitors for the app under `identifier`, with its centre and
    /// radius, or nil when there is none or the device cannot tell (the default). iOS keeps a
    /// region's geometry with it across launches (`CLLocationManager.monitoredRegions`, a
    /// `CLCircularRegion`'s `center` and `radius`; on iOS 17 a `CLMonitor` record's
    /// `CircularGeographicCondition`). The engine reads its ride tracker's wake fence at each launch
    /// when automatic tracking is on: a process relaunched before any ride was stored learns from it
    /// where the device rested (see ``AutomaticTracking``). A device that wraps another forwards it.
    func monitoredRegion(identifier: String) async -> MonitoredRegion?

    /// Whether iOS may run the app in the background for location events: Background App Refresh
    /// is on for the app and Low Power Mode is off (iOS: `UIApplication.backgroundRefreshStatus`
    /// and `ProcessInfo.isLowPowerModeEnabled`); nil when the device cannot tell (the default).
    /// Without it region monitoring fails as denied and iOS neither wakes nor relaunches the app
    /// for regions and significant changes (PLATFORM.md §5; field report rdar 16078124), so the
    /// engine reads it when it starts, at each launch and each return to the foreground (the user
    /// may have changed it in Settings) and reports it through ``EngineDiagnostics``.
    func backgroundAppRefreshAvailable() async -> Bool?
}

extension Device {
    /// The device cannot tell: nil.
    public func backgroundAppRefreshAvailable() async -> Bool? { nil }

    /// The device cannot tell: nil.
    public func monitoredRegion(identifier: String) async -> MonitoredRegion? { nil }
}

/// One event together with the time the OS reported it.
public struct TimedDeviceEvent: Hashable, Sendable, Codable {
    /// When the event was reported (virtual time on a simulator).
    public var time: Date
    /// What happened.
    public var event: DeviceEvent

    /// Pairs an event with its time.
    public init(time: Date, event: DeviceEvent) {
        self.time = time
        self.event = event
    }
}
