// The app's entry point. In Xcode, this file is the one source of the iOS App target
// (README.md, "Open it in Xcode"); everything else comes from the package's WaymarkExampleUI.
#if canImport(SwiftUI) && os(iOS)
import SwiftUI
import WaymarkExampleUI

/// The Waymark example app: a tab bar with Map, Ride and Fences.
///
/// Main-actor isolated, because `UIApplicationDelegateAdaptor` is made on the main actor
/// (SwiftUI creates the app there).
@main
@MainActor
struct WaymarkExampleApp: App {
    /// Creates the engine at launch, also for background launches that show no UI.
    @UIApplicationDelegateAdaptor(ExampleAppDelegate.self) private var delegate

    var body: some Scene {
        WindowGroup {
            RootView(app: delegate.app)
        }
    }
}
#else
import Foundation

/// Off iOS there is no app to run: the view models and their tests are the part that runs here.
@main
enum WaymarkExampleApp {
    static func main() {
        FileHandle.standardError.write(Data("The Waymark example app runs on an iPhone: see Examples/WaymarkExample/README.md. Its view models are tested with `swift test`.\n".utf8))
    }
}
#endif
