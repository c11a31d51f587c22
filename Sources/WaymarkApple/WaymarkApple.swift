#if canImport(CoreLocation)
import CoreLocation
import WaymarkEngine

/// The live `Device` over CoreLocation & co. Filled by issue #4; compiles only on Apple platforms.
public enum WaymarkAppleInfo {
    public static let version = "0.1.0"
}
#endif
