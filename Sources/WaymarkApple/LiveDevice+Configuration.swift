#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import Foundation
import WaymarkEngine

extension LiveDevice {
    /// What the app's Info.plist lacks for the features it uses, each with a message a developer
    /// can act on; empty when nothing is missing.
    ///
    /// Without a usage description iOS shows no prompt and never calls back; without
    /// `NSMotionUsageDescription` the first motion query crashes the app; without the `location`
    /// background mode updates stop in the background (``LiveDevice`` then leaves
    /// `allowsBackgroundLocationUpdates` off, because setting it would crash). Call it at launch,
    /// e.g. in an `assert` or a debug log, and declare `PermissionSequencer.Configuration.declaredUsageDescriptions`
    /// from `InfoPlistCheck.declaredUsageDescriptions(in:)` so the engine reports a missing key as
    /// `PermissionResult.misconfigured(missingUsageDescription:)` instead of waiting.
    ///
    /// ```swift
    /// for problem in LiveDevice.configurationProblems(for: AppCapabilities(locationAlways: true, backgroundLocation: true)) {
    ///     logger.fault("\(problem.message)")
    /// }
    /// ```
    public static func configurationProblems(for uses: AppCapabilities = AppCapabilities(),
                                             bundle: Bundle = .main) -> [ConfigurationProblem] {
        InfoPlistCheck.problems(in: bundle.infoDictionary ?? [:], for: uses)
    }

    /// The main bundle's Info.plist declarations; `Engine` reads them when it starts and
    /// publishes what is missing (`engine.diagnostics`).
    public func infoPlist() async -> InfoPlistDeclarations? {
        InfoPlistDeclarations(infoDictionary: Bundle.main.infoDictionary ?? [:])
    }
}
#endif
