import Foundation

extension Geodesic {
    /// Sine and cosine of the reduced latitude β, `tan β = (1 − f) tan φ`, for φ in degrees.
    ///
    /// The cosine is never below ``AngleMath/tiny``: a pole is the limit of nearby points.
    @inlinable
    func reducedLatitude(_ latitude: Double) -> (sin: Double, cos: Double) {
        let (s, c) = AngleMath.sinCos(degrees: latitude)
        let (sb, cb) = AngleMath.normalized((1 - flattening) * s, c)
        return (sb, max(AngleMath.tiny, cb))
    }

    /// `ε = (√(1+k²) − 1)/(√(1+k²) + 1)` for `k² = e′² cos²α₀`, written without cancellation.
    @inlinable
    func epsilon(cosAlpha0 calp0: Double) -> Double {
        let k2 = secondEccentricitySquared * calp0 * calp0
        return k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
    }

    /// Distance and reduced length between two points of one geodesic, both divided by `b`.
    ///
    /// - Parameters:
    ///   - sigma12: arc length σ₁₂ on the auxiliary sphere, radians.
    ///   - ssig1, csig1, ssig2, csig2: unit sine/cosine of σ₁ and σ₂.
    ///   - dn1, dn2: `√(1 + k² sin²σ) = √(1 + e′² sin²β)` at each point.
    /// - Returns: `s₁₂/b = I₁(σ₂) − I₁(σ₁)` and `m₁₂/b` (Karney eq. 38, with `J = I₁ − I₂`).
    @inlinable
    func lengths(epsilon e: Double, sigma12: Double,
                 ssig1: Double, csig1: Double, dn1: Double,
                 ssig2: Double, csig2: Double, dn2: Double) -> (distance: Double, reducedLength: Double) {
        let a1 = GeodesicSeries.a1(e), a2 = GeodesicSeries.a2(e)
        let c1 = GeodesicSeries.c1(e), c2 = GeodesicSeries.c2(e)
        let b1 = c1.sum(sin: ssig2, cos: csig2) - c1.sum(sin: ssig1, cos: csig1)
        let b2 = c2.sum(sin: ssig2, cos: csig2) - c2.sum(sin: ssig1, cos: csig1)
        let distance = a1 * (sigma12 + b1)
        let j12 = (a1 - a2) * sigma12 + (a1 * b1 - a2 * b2)
        let reduced = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (distance, reduced)
    }
}
