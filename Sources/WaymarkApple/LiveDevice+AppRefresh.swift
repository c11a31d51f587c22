#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications) && canImport(BackgroundTasks)
import BackgroundTasks
import Foundation
import WaymarkEngine
import os

/// The heartbeat's app-refresh task (`BGTaskScheduler`, `BGAppRefreshTask`) on a device.
///
/// iOS requires every task's launch handler to be registered before the app finishes launching
/// (Apple, `BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`: "must be
/// registered before the end of the app's launch sequence"), before any engine exists. So the app
/// calls ``registerAppRefreshTask(identifier:)`` from `application(_:didFinishLaunchingWithOptions:)`,
/// with the identifier it gives `Heartbeat.Configuration.taskIdentifier` (WaymarkEngine):
///
/// ```swift
/// func application(_ app: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
///     device.registerAppRefreshTask(identifier: "com.example.rides.heartbeat")
///     device.launched(options: options)
///     ...
/// }
/// ```
extension LiveDevice {
    /// Registers the launch handler of the app-refresh task `identifier`: when iOS runs it, the
    /// engine hears `DeviceEvent.appRefresh(identifier:)`, and `DeviceEvent.appRefreshExpired(identifier:)`
    /// from its expiration handler. Returns false (and logs a fault) when iOS refuses: the identifier is
    /// not in `BGTaskSchedulerPermittedIdentifiers`, or registration came after launch.
    @discardableResult
    public func registerAppRefreshTask(identifier: String) -> Bool {
        let registered = BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: .main) { [weak self] task in
            guard let self else {
                task.setTaskCompleted(success: false)
                return
            }
            self.appRefreshTasks.keep(task, for: identifier)   // on the main queue (`using: .main`)
            task.expirationHandler = { [sink] in sink.emit(.appRefreshExpired(identifier: identifier)) }
            self.sink.emit(.appRefresh(identifier: identifier))
        }
        if !registered {
            Self.log.fault("BGTaskScheduler refused to register \(identifier, privacy: .public): list it under BGTaskSchedulerPermittedIdentifiers and register before the app finishes launching")
        }
        return registered
    }

    /// Submits the request of `DeviceCommand.scheduleAppRefresh(identifier:earliestBegin:)`.
    @MainActor
    func scheduleAppRefresh(identifier: String, earliestBegin: Date) {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = earliestBegin
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch let error as BGTaskScheduler.Error {
            let reason: AppRefreshRefusal = switch error.code {
            case .notPermitted: .notPermitted
            case .tooManyPendingTaskRequests: .tooManyPending
            default: .unavailable
            }
            Self.log.error("app-refresh request \(identifier, privacy: .public) refused: \(reason.rawValue, privacy: .public)")
            emit(.appRefreshRefused(identifier: identifier, reason: reason))
        } catch {
            Self.log.error("app-refresh request \(identifier, privacy: .public) failed: \(error.localizedDescription, privacy: .public)")
            emit(.appRefreshRefused(identifier: identifier, reason: .unavailable))
        }
    }

    /// Completes the running task of `DeviceCommand.completeAppRefresh(identifier:success:)`.
    @MainActor
    func completeAppRefresh(identifier: String, success: Bool) {
        appRefreshTasks.take(identifier)?.setTaskCompleted(success: success)
    }
}

/// The app-refresh tasks iOS is running, kept until the engine completes them. Touched only on the
/// main queue (the launch handler is registered on it, commands hop to the main actor), like the
/// rest of ``LiveDevice``'s state.
final class AppRefreshTasks {
    private var running: [String: BGTask] = [:]

    func keep(_ task: BGTask, for identifier: String) { running[identifier] = task }

    func take(_ identifier: String) -> BGTask? { running.removeValue(forKey: identifier) }
}
#endif
