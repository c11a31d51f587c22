import WaymarkEngine

/// On-device durable storage and upload. Filled by issue #6.
public enum WaymarkSyncInfo {
    public static let version = "0.1.0"
}
