import Foundation
import WaymarkGeo

/// Correlated position error: a first-order Gauss–Markov process per axis (east, north).
///
/// `x(t+dt) = φ·x(t) + σ·√(1−φ²)·n`, with `φ = exp(−dt/τ)` and `n` standard normal, keeps the
/// stationary standard deviation at `σ` while successive errors stay correlated over about `τ`
/// seconds, as real receivers' errors do. The reported horizontal accuracy is the radius holding
/// 68% of a circular Gaussian: `σ·√(−2 ln 0.32) ≈ 1.51 σ`.
struct PositionError: Hashable, Sendable {
    /// Ratio of the 68% radius to the per-axis standard deviation.
    static let radiusPerSigma = (-2 * log(0.32)).squareRoot()

    var timeConstant: Double
    private var east = 0.0, north = 0.0, sigma = 0.0
    private var lastTime: Double?

    init(timeConstant: Double) { self.timeConstant = timeConstant }

    /// Advances the process to `t` with per-axis deviation `newSigma` and returns (east, north) in metres.
    mutating func sample(at t: Double, sigma newSigma: Double, rng: inout SeededRandom) -> (Double, Double) {
        if let lastTime, sigma > 0 {
            // A change of source rescales the current error so it stays consistent with the new deviation.
            let scale = newSigma / sigma
            east *= scale
            north *= scale
            let phi = exp(-max(0, t - lastTime) / timeConstant)
            let k = newSigma * (1 - phi * phi).squareRoot()
            east = phi * east + k * rng.normal()
            north = phi * north + k * rng.normal()
        } else {
            east = newSigma * rng.normal()
            north = newSigma * rng.normal()
        }
        sigma = newSigma
        lastTime = t
        return (east, north)
    }

    /// Forgets the history (after an outage or when the receiver restarts).
    mutating func reset() { lastTime = nil; sigma = 0 }

    /// Offsets `point` by `east` and `north` metres.
    static func offset(_ point: Coordinate, east: Double, north: Double) -> Coordinate {
        let distance = (east * east + north * north).squareRoot()
        guard distance > 0 else { return point }
        var bearing = atan2(east, north) * 180 / .pi
        if bearing < 0 { bearing += 360 }
        return Geodesy.destination(from: point, bearing: bearing, distance: distance)
    }
}
