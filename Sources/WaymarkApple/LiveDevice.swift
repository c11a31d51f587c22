#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import UIKit
import UserNotifications
import WaymarkEngine
import WaymarkGeo
#if canImport(CoreMotion)
import CoreMotion
#endif
#if canImport(Network)
import Network
#endif

/// The live ``Device`` on an iPhone: CoreLocation, UserNotifications, CoreMotion and the
/// UIApplication lifecycle, translated to and from Waymark's seam.
///
/// It contains no decisions of its own: every command maps to one OS call, every OS callback to
/// one event. Create one per process, early in `application(_:didFinishLaunchingWithOptions:)`,
/// and forward the three app-delegate callbacks the seam needs:
///
/// ```swift
/// let device = LiveDevice()
/// func application(_ app: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
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
/// NOT EXERCISED ON A DEVICE: this file is compiled only where these frameworks exist and has
/// never been built or run by Waymark's CI, which runs on Linux.
///
/// `@unchecked Sendable` because every mutable member is touched only on the main actor (all
/// OS calls hop there); the event continuation itself is thread-safe.
public final class LiveDevice: NSObject, Device, @unchecked Sendable {
    /// Every event the app can observe, in order. Single consumer.
    public let events: AsyncStream<TimedDeviceEvent>
    private let continuation: AsyncStream<TimedDeviceEvent>.Continuation
    private var manager: CLLocationManager?
    private var backgroundTasks: [Int: UIBackgroundTaskIdentifier] = [:]
    private var observers: [NSObjectProtocol] = []
    #if canImport(CoreMotion)
    let motion = CMMotionActivityManager()
    #endif
    #if canImport(Network)
    private let pathMonitor = NWPathMonitor()
    #endif

    /// Makes the device and starts observing the app lifecycle and network reachability.
    public override init() {
        (events, continuation) = AsyncStream.makeStream(of: TimedDeviceEvent.self)
        super.init()
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil,
                                            queue: .main) { [weak self] _ in self?.emit(.didEnterBackground) })
        observers.append(center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil,
                                            queue: .main) { [weak self] _ in self?.emit(.willEnterForeground) })
        #if canImport(Network)
        pathMonitor.pathUpdateHandler = { [weak self] path in
            self?.emit(.networkReachability(online: path.status == .satisfied))
        }
        pathMonitor.start(queue: .main)
        #endif
    }

    deinit {
        observers.forEach(NotificationCenter.default.removeObserver)
        continuation.finish()
    }

    /// The wall-clock time.
    public func now() async -> Date { Date() }

    /// Reports why the process started; call from `didFinishLaunchingWithOptions`.
    public func launched(options: [UIApplication.LaunchOptionsKey: Any]?) {
        let reason: LaunchReason
        if options?[.location] != nil {
            reason = .location
        } else if options?[.remoteNotification] != nil {
            reason = .remoteNotification
        } else {
            reason = .user
        }
        emit(.launched(reason: reason))
    }

    /// Forward `didRegisterForRemoteNotificationsWithDeviceToken` here.
    public func didRegisterForRemoteNotifications(deviceToken: Data) {
        emit(.remoteRegistration(.token(deviceToken.map { String(format: "%02x", $0) }.joined())))
    }

    /// Forward `didFailToRegisterForRemoteNotificationsWithError` here.
    public func didFailToRegisterForRemoteNotifications(error: any Error) {
        emit(.remoteRegistration(.failed(reason: error.localizedDescription)))
    }

    /// Performs one command on the main actor.
    public func perform(_ command: DeviceCommand) async {
        await MainActor.run { self.performOnMain(command) }
    }

    func emit(_ event: DeviceEvent) {
        continuation.yield(TimedDeviceEvent(time: Date(), event: event))
    }

    @MainActor
    private func performOnMain(_ command: DeviceCommand) {
        switch command {
        case .createLocationManager:
            guard manager == nil else { return }
            let m = CLLocationManager()
            manager = m
            m.delegate = self   // iOS answers with locationManagerDidChangeAuthorization
        case .requestNotificationAuthorization(let options):
            UNUserNotificationCenter.current().requestAuthorization(options: options.unOptions) { [weak self] granted, _ in
                self?.emit(.notificationAuthorization(granted: granted))
            }
        case .registerForRemoteNotifications:
            UIApplication.shared.registerForRemoteNotifications()
        case .requestWhenInUseAuthorization:
            manager?.requestWhenInUseAuthorization()
        case .requestAlwaysAuthorization:
            manager?.requestAlwaysAuthorization()
        case .requestMotionPermission:
            requestMotionPermission()
        case .startUpdatingLocation(let configuration):
            guard let m = manager else { return }
            m.desiredAccuracy = configuration.desiredAccuracy.clAccuracy
            m.distanceFilter = configuration.distanceFilterMeters ?? kCLDistanceFilterNone
            m.activityType = configuration.activityType.clActivityType
            m.pausesLocationUpdatesAutomatically = configuration.pausesLocationUpdatesAutomatically
            m.allowsBackgroundLocationUpdates = configuration.allowsBackgroundLocationUpdates
            m.startUpdatingLocation()
        case .stopUpdatingLocation:
            manager?.stopUpdatingLocation()
        case .requestLocation(let accuracy):
            manager?.desiredAccuracy = accuracy.clAccuracy
            manager?.requestLocation()
        case .startSignificantChanges:
            manager?.startMonitoringSignificantLocationChanges()
        case .stopSignificantChanges:
            manager?.stopMonitoringSignificantLocationChanges()
        case .startMonitoring(let region):
            guard let m = manager else { return }
            let center = CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude)
            let radius = min(region.radiusMeters, m.maximumRegionMonitoringDistance)
            m.startMonitoring(for: CLCircularRegion(center: center, radius: radius, identifier: region.identifier))
        case .stopMonitoring(let identifier):
            guard let m = manager, let region = m.monitoredRegions.first(where: { $0.identifier == identifier }) else { return }
            m.stopMonitoring(for: region)
        case .requestRegionState(let identifier):
            guard let m = manager, let region = m.monitoredRegions.first(where: { $0.identifier == identifier }) else { return }
            m.requestState(for: region)
        case .startMotionActivityUpdates:
            startMotionUpdates()
        case .stopMotionActivityUpdates:
            #if canImport(CoreMotion)
            motion.stopActivityUpdates()
            #endif
        case .beginBackgroundTask(let id):
            let identifier = UIApplication.shared.beginBackgroundTask(withName: "waymark.\(id)") { [weak self] in
                self?.emit(.backgroundTaskExpired(id: id))
            }
            backgroundTasks[id] = identifier
        case .endBackgroundTask(let id):
            if let identifier = backgroundTasks.removeValue(forKey: id) {
                UIApplication.shared.endBackgroundTask(identifier)
            }
        case .upload(let id, _):
            // On a device, WaymarkSync's UploadTransport performs real HTTP uploads; the seam's
            // upload command exists for the simulator's network model only.
            emit(.uploadFinished(id: id, result: .cancelled))
        }
    }
}
#endif
