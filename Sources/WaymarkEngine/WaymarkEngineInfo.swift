import WaymarkGeo

/// The device engine: the seam over the OS (``Device``) and the pure components built on it.
public enum WaymarkEngineInfo {
    /// The version of the engine's public API.
    public static let version = WaymarkVersion.current
}
