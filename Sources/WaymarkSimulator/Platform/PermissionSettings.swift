/// What becomes of a permission request made while another system prompt is on screen (a prompt
/// collision, PLATFORM.md §1). ``SimulationStats/promptCollisions`` counts collisions either way.
///
/// Field evidence only [S11]: Apple documents the loss of concurrent requests for App Tracking
/// Transparency alone ("iOS does not preserve concurrent requests"). For notification and
/// location prompts the reports disagree: zoontek/react-native-permissions#896 saw the location
/// prompt never appear after the notification prompt, while the seeds (002) saw both permissions
/// work out. A setting, so a test can run both ways (``PlatformConstants/promptCollisionOutcome``).
public enum PromptCollisionOutcome: String, Hashable, Sendable, Codable, CaseIterable {
    /// The second request is lost: no prompt and no callback, ever (the default; pessimistic).
    case lost
    /// The second prompt appears as soon as the visible one is answered (queued, in order).
    case shownAfterFirst
}

/// Which changes of the app's location privacy settings terminate an app that is running in the
/// background or suspended (PLATFORM.md §2; ``PlatformConstants/settingsChangeTermination``).
///
/// Field evidence only [S13]: "Changing the privacy settings of an app kills it" (rdar 17945133,
/// lionheart/openradar-mirror#3370); Baseflow/flutter-permission-handler#1451 and #746 report that
/// any toggle restarts the app, an upgrade included.
public enum SettingsChangeTermination: String, Hashable, Sendable, Codable, CaseIterable {
    /// Any change of the location status, precise accuracy or Location Services terminates the app
    /// (the default); the new status is reported at the next location manager creation.
    case anyChange
    /// Only a lower status (a revocation) terminates it; an upgrade is delivered as an authorization
    /// callback when the app next comes to the foreground (the simulator's first-edition rule).
    case downgradeOnly
}
