import Foundation
import WaymarkEngine
import WaymarkGeo

/// Short human descriptions of log entries for the timeline ("prompt shown: location when-in-use",
/// "3 fixes (gnss, ±8 m)"), instead of Swift's default enum descriptions.
enum TimelineText {
    /// Splits a camelCase identifier into lower-case words: `bestForNavigation` → "best for navigation".
    static func words(_ identifier: String) -> String {
        var out = ""
        for character in identifier {
            if character.isUppercase, !out.isEmpty { out.append(" ") }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }

    /// "3 fixes (gnss, ±5–9 m)": count, sources and the range of reported accuracy.
    static func fixes(_ fixes: [Fix]) -> String {
        let count = fixes.count == 1 ? "1 fix" : "\(fixes.count) fixes"
        var sources: [String] = []
        for fix in fixes where !sources.contains(fix.source.rawValue) { sources.append(fix.source.rawValue) }
        let accuracies = fixes.compactMap(\.horizontalAccuracy).map { Int($0.rounded()) }
        var detail = sources.joined(separator: "+")
        if let low = accuracies.min(), let high = accuracies.max() {
            detail += low == high ? ", ±\(low) m" : ", ±\(low)–\(high) m"
        }
        return "\(count) (\(detail))"
    }

    /// How long before `date` the oldest and newest fixes were measured, when that is more than a second.
    static func age(_ fixes: [Fix], at date: Date) -> String {
        guard let oldest = fixes.map(\.timestamp).min(), let newest = fixes.map(\.timestamp).max() else { return "" }
        let old = Int(date.timeIntervalSince(oldest).rounded()), new = Int(date.timeIntervalSince(newest).rounded())
        guard old > 1 else { return "" }
        return old == new ? ", measured \(old) s earlier" : ", measured \(new)–\(old) s earlier"
    }

    static func authorization(_ a: LocationAuthorization) -> String {
        guard a.servicesEnabled else { return "authorization: denied (location services off)" }
        let status: String = switch a.status {
        case .notDetermined: "not determined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .authorizedWhenInUse: "when in use"
        case .authorizedAlways: "always"
        }
        let authorized = a.status == .authorizedWhenInUse || a.status == .authorizedAlways
        return "authorization: " + status + (authorized && a.accuracy == .reduced ? " (approximate)" : "")
    }

    static func launch(_ reason: LaunchReason) -> String {
        switch reason {
        case .user: "launched by the user"
        case .location: "launched in the background by a location event"
        case .remoteNotification: "launched in the background by a silent push"
        case .background: "launched in the background"
        }
    }

    /// One event, as the app received it at `date`.
    static func event(_ event: DeviceEvent, at date: Date) -> String {
        switch event {
        case .authorizationChanged(let a): authorization(a)
        case .locations(let f): fixes(f) + age(f, at: date)
        case .locationError(.locationUnknown): "location unknown (transient, the service keeps trying)"
        case .locationError(.denied): "location error: denied"
        case .locationUpdatesPaused: "location updates paused"
        case .locationUpdatesResumed: "location updates resumed"
        case .regionState(let id, let state): "region \"\(id)\": \(state.rawValue)"
        case .regionEntered(let id): "entered region \"\(id)\""
        case .regionExited(let id): "exited region \"\(id)\""
        case .regionMonitoringFailed(let id, let reason): "monitoring region \"\(id)\" failed: \(words(reason.rawValue))"
        case .significantChange(let f): "significant change: " + fixes([f]) + age([f], at: date)
        case .visit(let v): visit(v)
        case .motionActivity(let m): "motion: \(m.kind.rawValue) (\(m.confidence.rawValue) confidence)"
        case .motionAuthorization(let granted): "motion permission " + (granted ? "granted" : "denied")
        case .notificationAuthorization(let granted): "notification permission " + (granted ? "granted" : "denied")
        case .remoteRegistration(.token(let token)): "push token received (\(token.prefix(8))…)"
        case .remoteRegistration(.failed(let reason)): "push registration failed: \(reason)"
        case .launched(let reason): launch(reason)
        case .didEnterBackground: "entered the background"
        case .willEnterForeground: "returning to the foreground"
        case .backgroundTaskExpired(let id): "background task \(id) expired"
        case .networkReachability(let online): "network " + (online ? "online" : "offline")
        case .liveUpdate(let u) where u.isStationary: "live update: stationary, paused"
        case .liveUpdate(let u): u.fix.map { "live update: " + fixes([$0]) + age([$0], at: date) } ?? "live update: no location"
        case .monitorEvent(let id, let state): "monitor condition \"\(id)\": \(state.rawValue)"
        case .backgroundActivitySessionRefused: "background activity session refused"
        case .appRefresh(let id): "app-refresh task \"\(id)\" runs"
        case .appRefreshExpired(let id): "app-refresh task \"\(id)\" ran out of time"
        case .appRefreshRefused(let id, let reason): "app-refresh request \"\(id)\" refused: \(words(reason.rawValue))"
        }
    }

    static func visit(_ v: Visit) -> String {
        let place = String(format: "%.5f, %.5f ±%.0f m", v.coordinate.latitude, v.coordinate.longitude, v.horizontalAccuracy)
        return v.departure == nil ? "visit: arrived at \(place)" : "visit: left \(place)"
    }

    static func configuration(_ c: LocationConfiguration) -> String {
        var parts = [words(c.desiredAccuracy.rawValue)]
        if let filter = c.distanceFilterMeters { parts.append("filter \(Int(filter.rounded())) m") }
        if c.activityType != .other { parts.append(words(c.activityType.rawValue)) }
        if !c.pausesLocationUpdatesAutomatically { parts.append("no auto-pause") }
        if c.allowsBackgroundLocationUpdates { parts.append("background allowed") }
        return parts.joined(separator: ", ")
    }

    static func options(_ o: NotificationOptions) -> String {
        let names = [(NotificationOptions.alert, "alert"), (.sound, "sound"), (.badge, "badge"), (.provisional, "provisional")]
        return names.filter { o.contains($0.0) }.map(\.1).joined(separator: ", ")
    }

    /// One command, as the app issued it.
    static func command(_ command: DeviceCommand) -> String {
        let text: String = switch command {
        case .createLocationManager: "create the location manager"
        case .requestNotificationAuthorization(let o): "request notification permission (\(options(o)))"
        case .registerForRemoteNotifications: "register for remote notifications"
        case .requestWhenInUseAuthorization: "request when-in-use authorization"
        case .requestAlwaysAuthorization: "request always authorization"
        case .requestMotionPermission: "request motion permission"
        case .requestTemporaryFullAccuracy(let key): "request temporary full accuracy (\(key))"
        case .startMonitoringVisits: "start visit monitoring"
        case .stopMonitoringVisits: "stop visit monitoring"
        case .startUpdatingLocation(let c): "start location updates (\(configuration(c)))"
        case .stopUpdatingLocation: "stop location updates"
        case .requestLocation(let accuracy): "request one location (\(words(accuracy.rawValue)))"
        case .startSignificantChanges: "start significant-change monitoring"
        case .stopSignificantChanges: "stop significant-change monitoring"
        case .startMonitoring(let r): "monitor region \"\(r.identifier)\" (\(Int(r.radiusMeters.rounded())) m)"
        case .stopMonitoring(let id): "stop monitoring region \"\(id)\""
        case .requestRegionState(let id): "request the state of region \"\(id)\""
        case .startMotionActivityUpdates: "start motion-activity updates"
        case .stopMotionActivityUpdates: "stop motion-activity updates"
        case .beginBackgroundTask(let id): "begin background task \(id)"
        case .endBackgroundTask(let id): "end background task \(id)"
        case .startLiveUpdates(let c): "start live updates (\(words(c.rawValue)))"
        case .stopLiveUpdates: "stop live updates"
        case .beginBackgroundActivitySession: "begin a background activity session"
        case .endBackgroundActivitySession: "end the background activity session"
        case .openMonitor: "open the monitor"
        case .addMonitorCondition(let r): "monitor condition \"\(r.identifier)\" (\(Int(r.radiusMeters.rounded())) m)"
        case .removeMonitorCondition(let id): "remove monitor condition \"\(id)\""
        case .requestMonitorState(let id): "request the state of condition \"\(id)\""
        case .beginServiceSession(let goal): "begin a service session (\(words(goal.rawValue)))"
        case .endServiceSession: "end the service session"
        case .scheduleAppRefresh(let id, let earliest): "schedule app-refresh task \"\(id)\" (earliest \(earliest.formatted(.iso8601)))"
        case .completeAppRefresh(let id, let success): "complete app-refresh task \"\(id)\"" + (success ? "" : " (unsuccessful)")
        }
        return "app: " + text
    }
}

extension PromptKind {
    /// The prompt's name in notes and the timeline ("location when-in-use").
    var displayName: String {
        switch self {
        case .notifications: "notifications"
        case .locationWhenInUse: "location when-in-use"
        case .locationAlways: "location always (upgrade)"
        case .motion: "motion"
        case .temporaryFullAccuracy: "temporary full accuracy"
        }
    }
}
