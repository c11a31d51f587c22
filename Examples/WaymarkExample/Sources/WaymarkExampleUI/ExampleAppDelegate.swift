#if canImport(SwiftUI) && os(iOS)
import Foundation
import UIKit
import WaymarkApple
import WaymarkEngine
import WaymarkExampleModels
import WaymarkSync

/// Whether a ride is under way, for the upload route; set once the app model exists.
@MainActor
private final class RideActivity {
    weak var model: RideModel?
    var isActive: Bool { model?.state.ride.isActive ?? false }
}

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
    /// Background sessions left from earlier versions of the app.
    private let uploads: BackgroundUploads
    /// The app's small stored state (the server address, permission memory, fences).
    private let state: FileAppStateStore

    /// Makes the app model with the state stored on earlier launches. The engine reads the
    /// Info.plist through `LiveDevice` when it starts and publishes what is missing, which the
    /// root view shows.
    public override init() {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        let folder = support.appendingPathComponent("Waymark", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let state = FileAppStateStore(url: folder.appendingPathComponent("example-state.json"))
        self.state = state
        // Uploads go out at once while the app runs; a batch left at suspension goes on in the
        // server's background session. A ride with background updates keeps the process running.
        let uploads = BackgroundUploads(), rideBox = RideActivity()
        self.uploads = uploads
        let makeTransport: @MainActor (ServerSettings) throws -> any UploadTransport = {
            try uploads.transport(server: $0.baseURL, keepsRunning: { rideBox.isActive })
        }
        do {
            app = try AppModel(device: device, store: state,
                               rides: RideStore(path: folder.appendingPathComponent("rides.sqlite").path),
                               tokens: KeychainTokenStore(), makeTransport: makeTransport)
        } catch {
            // The ride store cannot be opened (a full disk, a damaged file): the app still works,
            // recording into memory, and says why in the developer banner.
            // An in-memory store always opens.
            app = try! AppModel(device: device, store: state, rides: RideStore.inMemory(), tokens: KeychainTokenStore(),
                                makeTransport: makeTransport)
            app.report("The ride store cannot be opened, so rides are kept in memory only: \(error)")
        }
        rideBox.model = app.ride
        super.init()
    }

    public func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                            completionHandler: @escaping () -> Void) {
        if !uploads.handleEvents(forBackgroundURLSession: identifier, server: state.load().serverURL,
                                 completionHandler: completionHandler) {
            // Not a session of this app's: nothing to deliver.
            completionHandler()
        }
    }

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
