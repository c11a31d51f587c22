import WaymarkGeo

/// A circular region to monitor (`CLCircularRegion`).
public struct MonitoredRegion: Hashable, Sendable, Codable {
    /// Unique within the app; registering the same identifier again replaces the region.
    public var identifier: String
    /// The centre.
    public var center: Coordinate
    /// The requested radius in metres (the OS may clamp it).
    public var radiusMeters: Double

    /// Makes a region.
    public init(identifier: String, center: Coordinate, radiusMeters: Double) {
        self.identifier = identifier
        self.center = center
        self.radiusMeters = radiusMeters
    }
}
