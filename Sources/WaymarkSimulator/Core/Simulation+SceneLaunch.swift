import Foundation
import WaymarkEngine

/// What UIKit shows a launching app (PLATFORM.md §7), and the `.launched` event a live device makes
/// of it through `LaunchReasonResolver`, the rule `LiveDevice` uses.
///
/// - **`applicationState` inside `didFinishLaunching`** is `.background` at every launch of a
///   UIScene app, user launches included, until the first scene connects (bugsnag/bugsnag-cocoa#1263:
///   "UIScene-based apps are launched with a background UIApplicationState – the state changes to
///   foreground when the first scene is created"; #1307). An app-delegate app reads `.inactive` at
///   a user launch and `.background` at a background one. Apple requires the scene life cycle for
///   apps built after iOS 26 (TN3187), hence ``DeviceSetup/sceneLifecycle`` defaults to true.
/// - **Cold user launch of a UIScene app:** `didFinishLaunching` (background) → the scene connects →
///   `willEnterForeground` (UIKit posts it at a scene launch, TelemetryDeck/SwiftSDK#113;
///   ``PlatformConstants/willEnterForegroundAtSceneLaunch``) → activation → the run loop turns
///   (``PlatformConstants/sceneConnectsBeforeFirstRunLoopTurn`` orders the last two; both settings
///   are field evidence). An app-delegate app gets activation only.
/// - **Background launch:** no scene comes to the foreground; the run loop turns in the background.
/// - **Resume** (`open()` of a background or suspended app): `willEnterForeground`, then activation,
///   with no `.launched` (``Simulation/open()``).
extension Simulation {
    /// The events of a launch the system made for `reason`, the app seeing the keys of `visible`.
    func launchEvents(system reason: LaunchReason, keyed visible: LaunchReason) -> [DeviceEvent] {
        let sceneForeground = sceneLifecycle && reason == .user
        var resolver = LaunchReasonResolver(hasLocationKey: visible == .location,
                                            hasRemoteNotificationKey: visible == .remoteNotification,
                                            inBackgroundAtLaunch: sceneLifecycle || reason != .user)
        var decided = resolver.reason
        var observations: [LaunchReasonResolver.Observation] = []
        if sceneForeground, constants.sceneConnectsBeforeFirstRunLoopTurn { observations.append(.sceneWillEnterForeground) }
        let foregroundAtTurn = reason == .user && (!sceneLifecycle || constants.sceneConnectsBeforeFirstRunLoopTurn)
        observations.append(.runLoopTurned(inBackground: !foregroundAtTurn))
        if sceneForeground, !constants.sceneConnectsBeforeFirstRunLoopTurn { observations.append(.sceneWillEnterForeground) }
        for observation in observations where decided == nil { decided = resolver.observe(observation) }
        var events: [DeviceEvent] = [.launched(reason: decided ?? .background)]
        if sceneForeground, constants.willEnterForegroundAtSceneLaunch { events.append(.willEnterForeground) }
        return events
    }
}
