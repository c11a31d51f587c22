#if canImport(UIKit) && os(iOS)
import UIKit
import WaymarkExampleModels

/// Runs each upload inside a UIKit background task, so a batch that started before the app left
/// the foreground can finish (iOS gives about 30 s).
///
/// The expiration handler ends the task itself: a task still running when the time is up gets
/// the app killed (Apple, `UIApplication.beginBackgroundTask(withName:expirationHandler:)`). The
/// upload then fails or finishes on its own; an unacknowledged batch stays in the buffer.
///
/// ```swift
/// let uploader = BackgroundTaskUploader(URLSessionRideUploader(settings: settings))
/// ```
public struct BackgroundTaskUploader: RideUploader {
    private let base: any RideUploader

    /// Wraps `base`.
    public init(_ base: any RideUploader) { self.base = base }

    /// Sends `batch` with the wrapped uploader inside a background task.
    public func upload(_ batch: RideUploadBatch) async -> RideUploadOutcome {
        let task = await BackgroundTask.begin(name: "waymark.example.upload")
        let outcome = await base.upload(batch)
        await task.end()
        return outcome
    }
}

/// One UIKit background task; ended once, by the upload or by the expiration handler.
@MainActor
private final class BackgroundTask {
    private var identifier = UIBackgroundTaskIdentifier.invalid

    static func begin(name: String) -> BackgroundTask {
        let task = BackgroundTask()
        task.identifier = UIApplication.shared.beginBackgroundTask(withName: name) { task.end() }
        return task
    }

    func end() {
        guard identifier != .invalid else { return }
        UIApplication.shared.endBackgroundTask(identifier)
        identifier = .invalid
    }
}
#endif
