import Foundation
import WaymarkGeo

/// A small deterministic generator (SplitMix64) so property tests are reproducible.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A point uniformly distributed on the sphere.
    mutating func coordinate(maxLatitude: Double = 90) -> Coordinate {
        let z = Double.random(in: -1...1, using: &self)
        let latitude = min(maxLatitude, max(-maxLatitude, Foundation.asin(z) * 180 / .pi))
        return Coordinate(uncheckedLatitude: latitude, longitude: Double.random(in: -180..<180, using: &self))
    }
}
