/// Decides why the process started from what UIKit shows during the launch, for a live device:
/// the launch options, `applicationState` inside `didFinishLaunching`, and what comes next.
///
/// `applicationState` read in `didFinishLaunching` cannot tell a user launch of a UIScene app
/// (every SwiftUI app) from a background launch: "UIScene-based apps are launched with a background
/// UIApplicationState – the state changes to foreground when the first scene is created"
/// (bugsnag/bugsnag-cocoa#1263), and `applicationState` "always returns
/// `UIApplicationStateBackground` during the launch of `UIScene` based apps"
/// (bugsnag/bugsnag-cocoa#1307). Apple requires the scene life cycle for apps built after iOS 26
/// (TN3187). So a keyless launch in the background is **provisional**: it becomes a user launch
/// when the first scene comes to the foreground (`willEnterForegroundNotification`, which UIKit
/// posts at a scene launch as at a resume, TelemetryDeck/SwiftSDK#113, or `didActivateNotification`),
/// and a background launch when the main run loop has turned with the app still in the background
/// (bugsnag/bugsnag-cocoa#1307: "once the run loop has run we expect the app state to be accurate").
///
/// ```swift
/// var resolver = LaunchReasonResolver(hasLocationKey: false, hasRemoteNotificationKey: false,
///                                     inBackgroundAtLaunch: true)    // a SwiftUI app, any launch
/// resolver.reason                                                     // nil: wait
/// resolver.observe(.sceneWillEnterForeground)                         // .user
/// ```
///
/// A `Sendable` value type; the live device keeps one per process, on the main actor.
public struct LaunchReasonResolver: Hashable, Sendable {
    /// What the app sees after `didFinishLaunching`, in the order it sees it.
    public enum Observation: Hashable, Sendable {
        /// A scene (or the app) is about to enter the foreground, or became active.
        case sceneWillEnterForeground
        /// The main run loop has turned once since the launch; `inBackground` is
        /// `applicationState == .background` then.
        case runLoopTurned(inBackground: Bool)
    }

    /// The reason, once decided; nil while the launch is provisional.
    public private(set) var reason: LaunchReason?

    /// A resolver for a launch: `inBackgroundAtLaunch` is `applicationState == .background` read in
    /// `didFinishLaunching`. A launch key, or a launch not in the background, decides at once.
    public init(hasLocationKey: Bool, hasRemoteNotificationKey: Bool, inBackgroundAtLaunch: Bool) {
        if hasLocationKey || hasRemoteNotificationKey || !inBackgroundAtLaunch {
            reason = CoreLocationRules.launchReason(hasLocationKey: hasLocationKey,
                                                    hasRemoteNotificationKey: hasRemoteNotificationKey,
                                                    launchedInBackground: inBackgroundAtLaunch)
        }
    }

    /// Takes the next observation; returns the reason when this observation decides it (nil when it
    /// was decided before, or is still provisional).
    public mutating func observe(_ observation: Observation) -> LaunchReason? {
        guard reason == nil else { return nil }
        switch observation {
        case .sceneWillEnterForeground: reason = .user
        case .runLoopTurned(let inBackground): reason = inBackground ? .background : .user
        }
        return reason
    }
}
