import WaymarkGeo

/// The device engine: the seam over the OS and the pure components built on it.
///
/// Filled by the issues for the seam (#3), launch (#4), geofencing (#5) and ride tracking (#6).
public enum WaymarkEngineInfo {
    /// The version of the engine's public API.
    public static let version = "0.1.0"
}
