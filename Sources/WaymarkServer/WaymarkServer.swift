import WaymarkGeo

/// The tracking server. Filled by issue #7.
public enum WaymarkServerInfo {
    public static let version = "0.1.0"
}
