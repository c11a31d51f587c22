import WaymarkEngine

/// A deterministic simulator of iOS location behaviour (PLATFORM.md). Filled by issue #3.
public enum WaymarkSimulatorInfo {
    public static let version = "0.1.0"
}
