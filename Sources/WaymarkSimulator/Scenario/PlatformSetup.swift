import Foundation
import WaymarkEngine
import WaymarkGeo

/// The iOS-version profile and constant overrides.
public struct PlatformSetup: Hashable, Sendable, Codable {
    /// The profile; current iOS when absent.
    public var profile: IOSProfile?
    /// Constants to override, by ``PlatformConstants`` property name (`energy` is an object).
    public var overrides: [String: JSONValue]?

    /// Makes a platform setup.
    public init(profile: IOSProfile? = nil, overrides: [String: JSONValue]? = nil) {
        self.profile = profile
        self.overrides = overrides
    }
}
