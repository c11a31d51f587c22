import Foundation
import WaymarkGeo

/// The geodesy tests' deterministic generator.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// A point uniformly distributed on the sphere.
    mutating func coordinate(maxLatitude: Double = 90) -> Coordinate {
        let z = Double.random(in: -1...1, using: &self)
        let latitude = min(maxLatitude, max(-maxLatitude, Foundation.asin(z) * 180 / .pi))
        return Coordinate(uncheckedLatitude: latitude, longitude: Double.random(in: -180..<180, using: &self))
    }
}
