import WaymarkGeo

/// Facts about the tracking server module.
public enum WaymarkServerInfo {
    /// The server module's version string.
    public static let version = WaymarkVersion.current
}
