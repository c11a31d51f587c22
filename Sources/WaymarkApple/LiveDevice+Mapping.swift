#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import UserNotifications
import WaymarkEngine
import os
#if canImport(CoreMotion)
import CoreMotion
#endif

extension LiveDevice {
    @MainActor
    func requestMotionPermission() {
        #if canImport(CoreMotion)
        // CoreMotion has no request call: the first query shows the prompt; its status tells the answer.
        let now = Date()
        // The handler runs on the queue passed here (.main), so its main-actor isolation holds.
        motion.queryActivityStarting(from: now.addingTimeInterval(-60), to: now, to: .main) { [sink] _, _ in
            sink.emit(.motionAuthorization(granted: CMMotionActivityManager.authorizationStatus() == .authorized))
        }
        #else
        emit(.motionAuthorization(granted: false))
        #endif
    }

    @MainActor
    func startMotionUpdates() {
        #if canImport(CoreMotion)
        guard CMMotionActivityManager.isActivityAvailable() else {
            // No motion coprocessor (some iPads, the iOS Simulator): say so once, as an unknown
            // activity, so the engine does not wait for a classification that never comes; the
            // ride then decides from fixes alone.
            Self.log.notice("motion activity is not available on this device")
            emit(.motionActivity(MotionActivity(.unknown, confidence: .low)))
            return
        }
        motion.startActivityUpdates(to: .main) { [sink] activity in
            guard let activity else { return }
            sink.emit(.motionActivity(MotionActivity(activity: activity)))
        }
        #endif
    }
}

#if canImport(CoreMotion)
extension MotionActivity {
    /// One kind from Core Motion's flags, which may be set together (a car waiting at a light is
    /// `stationary` and `automotive`): the first set of cycling, automotive, running, walking,
    /// stationary, in that order, so a vehicle or a workout outranks standing still; none set is
    /// `unknown`. Core Motion's own `unknown` flag adds nothing the kinds do not already say.
    init(activity: CMMotionActivity) {
        let kind: Kind = activity.cycling ? .cycling : activity.automotive ? .automotive : activity.running ? .running
            : activity.walking ? .walking : activity.stationary ? .stationary : .unknown
        let confidence: Confidence = activity.confidence == .high ? .high : activity.confidence == .medium ? .medium : .low
        self.init(kind, confidence: confidence)
    }
}
#endif

extension CLAuthorizationStatus {
    var waymarkStatus: LocationAuthorizationStatus {
        switch self {
        case .notDetermined: .notDetermined
        case .restricted: .restricted
        case .denied: .denied
        case .authorizedAlways: .authorizedAlways
        case .authorizedWhenInUse: .authorizedWhenInUse
        @unknown default: .denied
        }
    }
}

extension DesiredAccuracy {
    var clAccuracy: CLLocationAccuracy {
        switch self {
        case .bestForNavigation: kCLLocationAccuracyBestForNavigation
        case .best: kCLLocationAccuracyBest
        case .nearestTenMeters: kCLLocationAccuracyNearestTenMeters
        case .hundredMeters: kCLLocationAccuracyHundredMeters
        case .kilometer: kCLLocationAccuracyKilometer
        case .threeKilometers: kCLLocationAccuracyThreeKilometers
        case .reduced: kCLLocationAccuracyReduced
        }
    }
}

extension ActivityType {
    var clActivityType: CLActivityType {
        switch self {
        case .other: .other
        case .automotiveNavigation: .automotiveNavigation
        case .fitness: .fitness
        case .otherNavigation: .otherNavigation
        case .airborne: .airborne
        }
    }
}

extension NotificationOptions {
    var unOptions: UNAuthorizationOptions {
        var options: UNAuthorizationOptions = []
        if contains(.alert) { options.insert(.alert) }
        if contains(.sound) { options.insert(.sound) }
        if contains(.badge) { options.insert(.badge) }
        if contains(.provisional) { options.insert(.provisional) }
        return options
    }
}
#endif
