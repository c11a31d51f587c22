/// What the ``PermissionSequencer`` must remember across launches and that iOS does not tell the app.
///
/// iOS shows the always-upgrade prompt at most once per install; asking again shows nothing and
/// sends no callback, so an app that does not remember would wait for a timeout on every launch.
/// The app stores this value (for example in `UserDefaults`, it is `Codable`) whenever the engine
/// publishes a new one, and passes it back when it creates the engine on the next launch. Deleting
/// the app deletes both the value and iOS's own record, so the two stay in step.
///
/// ```swift
/// let stored = (try? JSONDecoder().decode(PermissionMemory.self, from: data)) ?? PermissionMemory()
/// ```
///
/// A `Sendable` value type.
public struct PermissionMemory: Hashable, Sendable, Codable {
    /// Whether the always-upgrade request was made on this install.
    public var alwaysUpgradeAsked: Bool

    /// Makes a memory; a fresh install remembers nothing.
    public init(alwaysUpgradeAsked: Bool = false) {
        self.alwaysUpgradeAsked = alwaysUpgradeAsked
    }
}
