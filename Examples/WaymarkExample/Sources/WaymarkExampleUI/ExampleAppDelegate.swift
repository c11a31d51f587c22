#if canImport(SwiftUI) && os(iOS)
import Foundation
import UIKit
import WaymarkApple
import WaymarkEngine
import WaymarkExampleModels

/// Creates the live device and the ``AppModel`` when the process starts, and forwards the
/// launch and the remote-notification callbacks to the device.
///
/// Used through `@UIApplicationDelegateAdaptor`, so it exists for background launches too (a
/// location relaunch shows no UI, but the engine must run to resume a ride or decide a fence).
///
/// ```swift
/// @UIApplicationDelegateAdaptor(ExampleAppDelegate.self) private var delegate
/// ```
@MainActor
public final class ExampleAppDelegate: NSObject, UIApplicationDelegate {
    /// The live device (CoreLocation, UserNotifications, CoreMotion, the app lifecycle).
    public let device = LiveDevice()
    /// The app's view models over the engine.
    public let app: AppModel
    /// The background `URLSession` transports the Ride tab uploads through.
    private let uploads: BackgroundUploads

    /// Makes the app model with the state stored on earlier launches. The engine reads the
    /// Info.plist through `LiveDevice` when it starts and publishes what is missing, which the
    /// root view shows.
    public override init() {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        let uploads = BackgroundUploads()
        self.uploads = uploads
        app = AppModel(device: device,
                       store: FileAppStateStore(url: support.appendingPathComponent("Waymark/example-state.json")),
                       makeUploader: { uploads.uploader(for: $0) })
        super.init()
    }

    /// iOS relaunched (or woke) the app for a background upload session: the transport records the
    /// finished transfers' outcomes, then calls `completionHandler` (Apple,
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`).
    public func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                            completionHandler: @escaping () -> Void) {
        if !uploads.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler) {
            // Not a session of this process's transports (a server no longer configured): nothing to record.
            completionHandler()
        }
    }

    /// Tells the device why the process started (it creates the location manager at once, as a
    /// location relaunch requires), then starts the engine.
    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil) -> Bool {
        device.launched(options: launchOptions)
        let app = app
        Task { await app.start() }
        return true
    }

    /// Forwards the APNs token (the engine waits for it after a notification grant).
    public func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        device.didRegisterForRemoteNotifications(deviceToken: deviceToken)
    }

    /// Forwards a failed APNs registration (without the Push Notifications capability, for example).
    public func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        device.didFailToRegisterForRemoteNotifications(error: error)
    }
}
#endif
