#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import UIKit
import UserNotifications
import WaymarkEngine
import WaymarkGeo
import os
#if canImport(CoreMotion)
import CoreMotion
#endif
#if canImport(Network)
import Network
#endif

/// The live `Device` on an iPhone: CoreLocation, UserNotifications, CoreMotion and the
/// UIApplication lifecycle, translated to and from Waymark's seam.
///
/// Every command maps to OS calls and every OS callback to one event; the few decisions the
/// translation needs (launch reason, error mapping, radius, background mode) are pure functions
/// in `CoreLocationRules` and `InfoPlistCheck`, tested on Linux. Create one per process and
/// call ``launched(options:)`` from `application(_:didFinishLaunchingWithOptions:)` (under the
/// UIScene life cycle too: the app delegate still gets that call, only without launch options):
///
/// ```swift
/// let device = LiveDevice()
/// func application(_ app: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
///     assert(LiveDevice.configurationProblems(for: AppCapabilities(backgroundLocation: true)).isEmpty)
///     device.launched(options: options)
///     engine = Engine(device: device)
///     return true
/// }
/// func application(_ app: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken token: Data) {
///     device.didRegisterForRemoteNotifications(deviceToken: token)
/// }
/// func application(_ app: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: Error) {
///     device.didFailToRegisterForRemoteNotifications(error: error)
/// }
/// ```
///
/// The Info.plist needs `NSLocationWhenInUseUsageDescription`, and as the app's features require
/// `NSLocationAlwaysAndWhenInUseUsageDescription`, `NSMotionUsageDescription` and
/// `UIBackgroundModes` (`location`, `remote-notification`): ``configurationProblems(for:bundle:)``
/// lists what is missing. An app that asks for temporary full accuracy also declares each purpose
/// key in `NSLocationTemporaryUsageDescriptionDictionary`; a request whose key is missing is
/// logged as a fault here, and iOS answers it with an error instead of a prompt.
///
/// Three location managers, because Core Location attributes nothing: the main one (authorization,
/// standard updates, regions), one for significant changes (so its fixes can be reported as
/// `DeviceEvent.significantChange(_:)`), and one for one-shot requests.
///
/// Compiled for iOS in CI (`build-for-ios.sh`), not yet exercised on a device.
///
/// `@unchecked Sendable` because every mutable member is touched only on the main actor (the
/// commands hop there, and the managers call their delegates on the main run loop because they
/// are created on it); events go through `EventSink`, which is thread-safe.
public final class LiveDevice: NSObject, Device, @unchecked Sendable {
    /// Every event the app can observe, in order. Single consumer.
    public let events: AsyncStream<TimedDeviceEvent>
    let sink: EventSink
    /// Made per use: `Logger` is cheap to create and not `Sendable` in the iOS 17 SDK.
    static var log: Logger { Logger(subsystem: "Waymark", category: "LiveDevice") }
    // Main actor only, from here on.
    private var manager: CLLocationManager?
    private var significantChangeManager: CLLocationManager?
    private var oneShotManager: CLLocationManager?
    /// `CLLocationManager.delegate` is weak: the device keeps its delegates.
    private var delegates: [LocationDelegate] = []
    private var backgroundTasks: [Int: UIBackgroundTaskIdentifier] = [:]
    private var observers: [any NSObjectProtocol] = []
    /// A keyless launch in the background, not yet decided (``launched(options:)``).
    private var pendingLaunch: LaunchReasonResolver?
    /// When ``launched(options:)`` was called: the time of the `.launched` event.
    private var launchTime = Date()
    /// The end of a background launch's window (about 10 s), in which a background activity
    /// session may be re-created; nil after a launch in the foreground.
    var backgroundLaunchWindowEnd: Date?
    /// The `UserDefaults` key remembering that significant-change monitoring is on.
    static let significantChangesKey = "waymark.significantChanges.on"
    /// The iOS 17 services (`LiveDevice+Modern`).
    let modern: ModernServices
    #if canImport(BackgroundTasks)
    /// The running app-refresh tasks (`LiveDevice+AppRefresh`).
    let appRefreshTasks = AppRefreshTasks()
    #endif
    #if canImport(CoreMotion)
    let motion = CMMotionActivityManager()
    #endif
    #if canImport(Network)
    private let pathMonitor = NWPathMonitor()
    #endif

    /// Whether an app with Always authorization shows the blue location indicator while it
    /// receives standard updates in the background (`showsBackgroundLocationIndicator`; a
    /// when-in-use app always shows it). True by default: a ride recording in the background is
    /// something the user should see, and the indicator lets them tap back into the app.
    public let showsBackgroundLocationIndicator: Bool

    /// Makes the device and starts observing the app lifecycle and network reachability.
    public override convenience init() {
        self.init(showsBackgroundLocationIndicator: true)
    }

    /// Makes the device and starts observing the app lifecycle and network reachability.
    ///
    /// - parameter showsBackgroundLocationIndicator: see ``showsBackgroundLocationIndicator``.
    public init(showsBackgroundLocationIndicator: Bool) {
        self.showsBackgroundLocationIndicator = showsBackgroundLocationIndicator
        let (events, continuation) = AsyncStream.makeStream(of: TimedDeviceEvent.self)
        self.events = events
        sink = EventSink(continuation)
        modern = ModernServices()
        super.init()
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil,
                                            queue: .main) { [sink] _ in sink.emit(.didEnterBackground) })
        // UIKit posts both at a resume and, in a UIScene app, when the first scene comes to the
        // foreground at a user launch (TelemetryDeck/SwiftSDK#113): either settles a provisional
        // launch as a user launch before the event itself goes out.
        observers.append(center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil,
                                            queue: .main) { [weak self] _ in
            MainActor.assumeIsolated {
                self?.observeLaunch(.sceneWillEnterForeground)
                self?.emit(.willEnterForeground)
            }
        })
        observers.append(center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil,
                                            queue: .main) { [weak self] _ in
            MainActor.assumeIsolated { self?.observeLaunch(.sceneWillEnterForeground) }
        })
        #if canImport(Network)
        // The monitor reports every path update, also repeats of the same status; only changes
        // are events, as in the simulator.
        pathMonitor.pathUpdateHandler = { [sink] path in
            sink.emitReachability(online: path.status == .satisfied)
        }
        pathMonitor.start(queue: .main)
        #endif
    }

    deinit {
        observers.forEach(NotificationCenter.default.removeObserver)
        #if canImport(Network)
        pathMonitor.cancel()
        #endif
        sink.finish()
    }

    /// The wall-clock time.
    public func now() async -> Date { Date() }

    /// Reports why the process started and creates the location manager; call from
    /// `didFinishLaunchingWithOptions`, before anything the app awaits.
    ///
    /// Without a launch key, a launch while `applicationState == .background` is provisional
    /// (`LaunchReasonResolver`): under the UIScene life cycle iOS delivers no launch options, so a
    /// location relaunch carries no `.location` key (Apple, `UIApplication.LaunchOptionsKey.location`),
    /// and `applicationState` is `.background` during every launch, user launches included, until
    /// the first scene connects (bugsnag/bugsnag-cocoa#1263, #1307). The `.launched` event then
    /// waits for the first scene to come to the foreground (a user launch) or for the main run loop
    /// to turn with the app still in the background (a background launch); every event of the
    /// meantime (the manager's authorization callback among them) is held and follows it in order.
    ///
    /// The manager is created here, synchronously, because a location relaunch leaves the app
    /// about 10 s, and the event that caused it is delivered only to a location manager with a
    /// delegate (Apple, `UIApplication.LaunchOptionsKey.location`: "create a CLLocationManager
    /// object and assign a delegate to it"; `CLRegion.notifyOnExit`). Waiting for the engine's
    /// `createLocationManager` would spend that window on whatever the app awaits first.
    @MainActor
    public func launched(options: [UIApplication.LaunchOptionsKey: Any]? = nil) {
        let resolver = LaunchReasonResolver(
            hasLocationKey: options?[.location] != nil,
            hasRemoteNotificationKey: options?[.remoteNotification] != nil,
            inBackgroundAtLaunch: UIApplication.shared.applicationState == .background)
        launchTime = Date()
        let inBackground = UIApplication.shared.applicationState == .background
        backgroundLaunchWindowEnd = inBackground ? launchTime.addingTimeInterval(10) : nil
        if let reason = resolver.reason {
            emit(.launched(reason: reason))
        } else {
            pendingLaunch = resolver
            sink.hold()
            DispatchQueue.main.async { [weak self] in
                MainActor.assumeIsolated {
                    self?.observeLaunch(.runLoopTurned(inBackground: UIApplication.shared.applicationState == .background))
                }
            }
        }
        _ = mainManager()
        // After a significant-change relaunch the current event is delivered only once the app
        // restarts the service (Apple, `startMonitoringSignificantLocationChanges()`: "you must
        // still … call this method … the current event is delivered to your delegate immediately"),
        // so it is restarted here, not when the engine asks, later in the ~10 s window (review 2, L3).
        if UserDefaults.standard.bool(forKey: Self.significantChangesKey) {
            significantChangeManagerStarted()
        }
    }

    /// Creates the significant-change manager if needed and starts it.
    @MainActor
    private func significantChangeManagerStarted() {
        let m = significantChangeManager ?? makeManager(.significantChange)
        significantChangeManager = m
        m.startMonitoringSignificantLocationChanges()
    }

    /// Feeds a provisional launch; once decided, `.launched` goes out, then the held events.
    @MainActor
    private func observeLaunch(_ observation: LaunchReasonResolver.Observation) {
        guard var resolver = pendingLaunch else { return }
        let decided = resolver.observe(observation)
        pendingLaunch = decided == nil ? resolver : nil
        if let decided { sink.release(first: .launched(reason: decided), at: launchTime) }
    }

    /// Forward `didRegisterForRemoteNotificationsWithDeviceToken` here.
    public func didRegisterForRemoteNotifications(deviceToken: Data) {
        emit(.remoteRegistration(.token(deviceToken.map { String(format: "%02x", $0) }.joined())))
    }

    /// Forward `didFailToRegisterForRemoteNotificationsWithError` here.
    public func didFailToRegisterForRemoteNotifications(error: any Error) {
        emit(.remoteRegistration(.failed(reason: error.localizedDescription)))
    }

    /// The identifiers of every region the OS monitors for this app (Waymark's and the host app's;
    /// they persist across launches), read from `monitoredRegions`, and the conditions of the
    /// app's `CLMonitor` when it has one.
    ///
    /// The engine reads them at each launch (the `Device` requirement) to reconcile its stored
    /// regions; reading them creates the main manager if the launch has not yet.
    public func monitoredRegionIdentifiers() async -> Set<String>? {
        let legacy = await MainActor.run { Set(self.mainManager().monitoredRegions.map(\.identifier)) }
        // The iOS 17 backend's conditions are the monitor's, not monitoredRegions (review 2, M1):
        // without them every launch would re-add every condition, resetting its state to unknown
        // (Apple, `CLMonitor.add(_:identifier:)`).
        guard let conditions = await monitorIdentifiers() else { return legacy }
        return legacy.union(conditions)
    }

    /// The circular region iOS monitors for this app under `identifier`, with its centre and radius:
    /// a `CLCircularRegion` of `monitoredRegions` (which persist across launches with their geometry,
    /// Apple, `CLLocationManager.monitoredRegions`), else a circular condition of the app's `CLMonitor`.
    public func monitoredRegion(identifier: String) async -> MonitoredRegion? {
        let legacy = await MainActor.run { () -> MonitoredRegion? in
            guard let circle = self.mainManager().monitoredRegions.first(where: { $0.identifier == identifier }) as? CLCircularRegion else {
                return nil
            }
            return MonitoredRegion(identifier: identifier,
                                   center: Coordinate(uncheckedLatitude: circle.center.latitude, longitude: circle.center.longitude),
                                   radiusMeters: circle.radius)
        }
        if let legacy { return legacy }
        return await monitorRegion(identifier: identifier)
    }

    /// `maximumRegionMonitoringDistance` of the main manager.
    @MainActor
    var maximumRegionMonitoringDistance: CLLocationDistance { mainManager().maximumRegionMonitoringDistance }

    /// `UIApplication.backgroundRefreshStatus` is `.available` and Low Power Mode is off: without
    /// either, iOS does not relaunch the app for region events or significant changes (see
    /// `Device.backgroundAppRefreshAvailable()`).
    public func backgroundAppRefreshAvailable() async -> Bool? {
        let status = await MainActor.run { UIApplication.shared.backgroundRefreshStatus }
        return status == .available && !ProcessInfo.processInfo.isLowPowerModeEnabled
    }

    /// Performs one command on the main actor.
    public func perform(_ command: DeviceCommand) async {
        await MainActor.run { self.performOnMain(command) }
    }

    func emit(_ event: DeviceEvent) {
        sink.emit(event)
    }

    /// The main manager, created on first use; iOS answers its creation with the authorization callback.
    @MainActor
    func mainManager() -> CLLocationManager {
        if let manager { return manager }
        let m = makeManager(.main)
        manager = m
        return m
    }

    @MainActor
    private func makeManager(_ role: LocationDelegate.Role) -> CLLocationManager {
        let m = CLLocationManager()
        let delegate = LocationDelegate(role: role, sink: sink)
        delegates.append(delegate)
        m.delegate = delegate
        return m
    }

    @MainActor
    private func performOnMain(_ command: DeviceCommand) {
        if performModern(command) { return }
        switch command {
        case .createLocationManager:
            if let manager {
                // iOS answers a new manager with the authorization callback; the app asked again
                // for one it already has, so answer the same way (the simulator answers every
                // create) rather than leave a waiting engine without the callback.
                sink.emitAuthorization(of: manager)
            } else {
                _ = mainManager()
            }
        case .requestNotificationAuthorization(let options):
            requestNotificationAuthorization(options)
        case .registerForRemoteNotifications:
            UIApplication.shared.registerForRemoteNotifications()
        case .requestWhenInUseAuthorization:
            mainManager().requestWhenInUseAuthorization()
        case .requestAlwaysAuthorization:
            mainManager().requestAlwaysAuthorization()
        case .requestTemporaryFullAccuracy(let purposeKey):
            // The answer is an authorization callback with the new accuracy (Apple,
            // `requestTemporaryFullAccuracyAuthorization(withPurposeKey:completion:)`); the
            // completion only reports a missing purpose key, which configurationProblems() checks.
            let purposes = Bundle.main.object(forInfoDictionaryKey: "NSLocationTemporaryUsageDescriptionDictionary") as? [String: Any]
            if purposes?[purposeKey] == nil {
                Self.log.fault("temporary full accuracy: NSLocationTemporaryUsageDescriptionDictionary has no \(purposeKey, privacy: .public) entry")
            }
            mainManager().requestTemporaryFullAccuracyAuthorization(withPurposeKey: purposeKey) { @Sendable error in
                if let error { LiveDevice.log.error("temporary full accuracy: \(error.localizedDescription, privacy: .public)") }
            }
        case .requestMotionPermission:
            requestMotionPermission()
        case .startUpdatingLocation(let configuration):
            startUpdatingLocation(configuration)
        case .stopUpdatingLocation:
            manager?.stopUpdatingLocation()
        case .requestLocation(let accuracy):
            // A manager of its own: requestLocation() uses the manager's desiredAccuracy and stops
            // that manager's location updates once it has delivered (Apple,
            // `CLLocationManager.requestLocation()`), so on the main manager it would lower the
            // accuracy of, or end, the standard updates a ride is running.
            let m = oneShotManager ?? makeManager(.oneShot)
            oneShotManager = m
            m.desiredAccuracy = accuracy.clAccuracy
            m.requestLocation()
        case .startSignificantChanges:
            // A manager of its own: significant-change fixes arrive through the same
            // `locationManager(_:didUpdateLocations:)` as standard updates, unmarked (Apple,
            // `startMonitoringSignificantLocationChanges()`); only the manager tells them apart.
            UserDefaults.standard.set(true, forKey: Self.significantChangesKey)
            significantChangeManagerStarted()
        case .stopSignificantChanges:
            UserDefaults.standard.set(false, forKey: Self.significantChangesKey)
            significantChangeManager?.stopMonitoringSignificantLocationChanges()
        case .startMonitoring(let region):
            startMonitoring(region)
        case .stopMonitoring(let identifier):
            guard let m = manager, let region = m.monitoredRegions.first(where: { $0.identifier == identifier }) else { return }
            m.stopMonitoring(for: region)
        case .requestRegionState(let identifier):
            guard let region = mainManager().monitoredRegions.first(where: { $0.identifier == identifier }) else {
                // The OS does not monitor it (never registered, or removed by the host app): answer
                // unknown rather than leave a waiting engine without a reply.
                emit(.regionState(identifier: identifier, state: .unknown))
                return
            }
            mainManager().requestState(for: region)
        case .startMonitoringVisits:
            mainManager().startMonitoringVisits()
        case .stopMonitoringVisits:
            manager?.stopMonitoringVisits()
        case .startMotionActivityUpdates:
            startMotionUpdates()
        case .stopMotionActivityUpdates:
            #if canImport(CoreMotion)
            motion.stopActivityUpdates()
            #endif
        case .beginBackgroundTask(let id):
            beginBackgroundTask(id)
        case .endBackgroundTask(let id):
            if let identifier = backgroundTasks.removeValue(forKey: id) {
                UIApplication.shared.endBackgroundTask(identifier)
            }
        case .scheduleAppRefresh(let identifier, let earliestBegin):
            #if canImport(BackgroundTasks)
            scheduleAppRefresh(identifier: identifier, earliestBegin: earliestBegin)
            #endif
        case .completeAppRefresh(let identifier, let success):
            #if canImport(BackgroundTasks)
            completeAppRefresh(identifier: identifier, success: success)
            #endif
        default:
            // The iOS 17 commands, performed above (LiveDevice+Modern).
            break
        }
    }

    /// Asks through the async API, so no closure formed here (and so isolated to the main actor)
    /// is handed to UserNotifications: it calls its completion handler on a background queue
    /// (Apple, `UNUserNotificationCenter.requestAuthorization(options:completionHandler:)`: "may
    /// be executed on a background thread"), where Swift 6's main-actor check would trap.
    @MainActor
    private func requestNotificationAuthorization(_ options: NotificationOptions) {
        let unOptions = options.unOptions
        Task.detached { [sink] in
            do {
                let granted = try await UNUserNotificationCenter.current().requestAuthorization(options: unOptions)
                sink.emit(.notificationAuthorization(granted: granted))
            } catch {
                Self.log.error("notification authorization failed: \(error.localizedDescription, privacy: .public)")
                sink.emit(.notificationAuthorization(granted: false))
            }
        }
    }

    @MainActor
    private func startUpdatingLocation(_ configuration: LocationConfiguration) {
        let m = mainManager()
        m.desiredAccuracy = configuration.desiredAccuracy.clAccuracy
        m.distanceFilter = configuration.distanceFilterMeters ?? kCLDistanceFilterNone
        m.activityType = configuration.activityType.clActivityType
        m.pausesLocationUpdatesAutomatically = configuration.pausesLocationUpdatesAutomatically
        // Setting allowsBackgroundLocationUpdates to true without `location` in UIBackgroundModes
        // raises an exception (Apple, `CLLocationManager.allowsBackgroundLocationUpdates`: "you
        // must add the UIBackgroundModes key (with the location value)"). Without the mode the
        // updates stop in the background instead, and configurationProblems() says why.
        let background = InfoPlistCheck.allowsBackgroundLocationUpdates(
            requested: configuration.allowsBackgroundLocationUpdates, info: Bundle.main.infoDictionary ?? [:])
        if configuration.allowsBackgroundLocationUpdates, !background {
            Self.log.fault("background location updates requested, but UIBackgroundModes lacks \"location\": updates stop in the background")
        }
        m.allowsBackgroundLocationUpdates = background
        // Only after allowsBackgroundLocationUpdates, and only with it: the indicator is about
        // background use (Apple, `CLLocationManager.showsBackgroundLocationIndicator`).
        m.showsBackgroundLocationIndicator = background && showsBackgroundLocationIndicator
        m.startUpdatingLocation()
    }

    @MainActor
    private func startMonitoring(_ region: MonitoredRegion) {
        let m = mainManager()
        // maximumRegionMonitoringDistance is -1 where monitoring is unavailable (Apple,
        // `CLLocationManager.maximumRegionMonitoringDistance`), and iOS fails an over-large
        // radius instead of clamping it; regionRadius clamps, never below zero.
        guard CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self),
              let radius = CoreLocationRules.regionRadius(requested: region.radiusMeters,
                                                          maximum: m.maximumRegionMonitoringDistance) else {
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .unavailable))
            return
        }
        let center = CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude)
        let circle = CLCircularRegion(center: center, radius: radius, identifier: region.identifier)
        circle.notifyOnEntry = true
        circle.notifyOnExit = true
        m.startMonitoring(for: circle)
    }

    /// Begins a named background task whose expiration handler ends it.
    ///
    /// The handler runs on the main thread shortly before the time runs out, and the task must
    /// be ended by then, or iOS terminates the app (Apple,
    /// `UIApplication.beginBackgroundTask(withName:expirationHandler:)`). The engine's
    /// `endBackgroundTask` would come only after the handler returned, so the handler ends the
    /// task itself, then tells the engine. A second begin with a running id is ignored (as the
    /// simulator does): replacing the stored identifier would leak the first task, which gets the
    /// app killed as well. No background time left (`.invalid`) reads as an expiry at once.
    @MainActor
    private func beginBackgroundTask(_ id: Int) {
        guard backgroundTasks[id] == nil else { return }
        let identifier = UIApplication.shared.beginBackgroundTask(withName: "waymark.\(id)") { [weak self] in
            guard let self else { return }
            if let identifier = self.backgroundTasks.removeValue(forKey: id) {
                UIApplication.shared.endBackgroundTask(identifier)
            }
            self.emit(.backgroundTaskExpired(id: id))
        }
        guard identifier != .invalid else {
            emit(.backgroundTaskExpired(id: id))
            return
        }
        backgroundTasks[id] = identifier
    }
}

/// Yields events in the order they were reported, each stamped with the time it was reported, on
/// a serial queue: the authorization event may need a check that must not run on the main thread.
final class EventSink: Sendable {
    private let continuation: AsyncStream<TimedDeviceEvent>.Continuation
    private let queue = DispatchQueue(label: "waymark.live-device.events")

    init(_ continuation: AsyncStream<TimedDeviceEvent>.Continuation) {
        self.continuation = continuation
    }

    /// The last reachability emitted; read and written only on `queue`.
    nonisolated(unsafe) private var lastReachability: Bool?
    /// Events held while a launch is provisional (nil when not holding); only on `queue`.
    nonisolated(unsafe) private var held: [TimedDeviceEvent]?

    func emit(_ event: DeviceEvent) {
        let time = Date()
        queue.async { [self] in deliver(TimedDeviceEvent(time: time, event: event)) }
    }

    /// Holds every event from now until ``release(first:at:)``.
    func hold() {
        queue.async { [self] in held = held ?? [] }
    }

    /// Yields `event` stamped `time`, then every held event, and stops holding.
    func release(first event: DeviceEvent, at time: Date) {
        queue.async { [self] in
            continuation.yield(TimedDeviceEvent(time: time, event: event))
            for timed in held ?? [] { continuation.yield(timed) }
            held = nil
        }
    }

    /// Yields `timed`, or holds it; on `queue`.
    private func deliver(_ timed: TimedDeviceEvent) {
        if held != nil { held?.append(timed) } else { continuation.yield(timed) }
    }

    /// The reachability event, only when it differs from the last one.
    func emitReachability(online: Bool) {
        let time = Date()
        queue.async { [self] in
            guard lastReachability != online else { return }
            lastReachability = online
            deliver(TimedDeviceEvent(time: time, event: .networkReachability(online: online)))
        }
    }

    /// The authorization event of `manager`, read on the caller's thread (the main one, where its
    /// delegate is called). Services off system-wide read as `denied` (Apple,
    /// `CLLocationManager.authorizationStatus`), so `locationServicesEnabled()` is consulted only
    /// then, and off the main thread, where Apple's runtime check warns that it "can cause UI
    /// unresponsiveness" (Apple, `CLLocationManager.locationServicesEnabled()`).
    func emitAuthorization(of manager: CLLocationManager) {
        let status = manager.authorizationStatus.waymarkStatus
        let accuracy: AccuracyAuthorization = manager.accuracyAuthorization == .fullAccuracy ? .full : .reduced
        let time = Date()
        queue.async { [self] in
            let enabled = status != .denied || CLLocationManager.locationServicesEnabled()
            let auth = LocationAuthorization(status: status, accuracy: accuracy, servicesEnabled: enabled)
            deliver(TimedDeviceEvent(time: time, event: .authorizationChanged(auth)))
        }
    }

    func finish() {
        queue.async { [continuation] in continuation.finish() }
    }
}
#endif
