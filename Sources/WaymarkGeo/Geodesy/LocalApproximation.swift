import Foundation

/// A fast ellipsoidal distance for short segments.
///
/// PLACEHOLDER: spherical until the ellipsoidal local approximation lands.
public enum LocalApproximation {
    /// Distance in metres between two nearby points.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        Geodesy.haversineDistance(a, b)
    }
}
