import Foundation

extension Geodesic {
    /// The inverse solution as sines and cosines of the azimuths (exact signs, no wrapping).
    @usableFromInline
    struct InverseSolution: Sendable {
        var distance: Double
        var sinAzimuth1: Double, cosAzimuth1: Double
        var sinAzimuth2: Double, cosAzimuth2: Double
    }

    /// The inverse problem (Karney 2013, sections 4–6).
    ///
    /// The problem is first brought to a canonical form: longitude difference λ₁₂ in [0, π],
    /// point 1 the one farther from the equator, and in the southern hemisphere. Then:
    /// - meridional lines (λ₁₂ = 0 or π, or point 1 at the pole) are solved directly,
    ///   unless the meridian is not the shortest path (it passes a conjugate point);
    /// - equatorial lines shorter than (1 − f)π are arcs of the equator;
    /// - otherwise α₁ is found by Newton's method on λ₁₂(α₁), kept inside a bracket
    ///   (λ₁₂ increases with α₁ on [0, π]) and falling back to bisection.
    /// The answer is mapped back to the original orientation at the end.
    @usableFromInline
    func solveInverse(latitude1: Double, longitude1: Double,
                      latitude2: Double, longitude2: Double) -> InverseSolution {
        var lonDiff = AngleMath.longitudeDifference(longitude1, longitude2)
        if lonDiff == -180 { lonDiff = 180 }
        let lonSign: Double = lonDiff < 0 ? -1 : 1
        lonDiff *= lonSign
        var lat1 = latitude1, lat2 = latitude2
        let swapped = abs(lat1) < abs(lat2)
        if swapped { swap(&lat1, &lat2) }            // reversing also mirrors λ₁₂; see the end
        let latSign: Double = lat1 < 0 ? 1 : -1
        lat1 *= latSign
        lat2 *= latSign

        let (slam12, clam12) = AngleMath.sinCos(degrees: lonDiff)
        let lam12 = lonDiff * AngleMath.radiansPerDegree
        let (sbet1, cbet1) = reducedLatitude(lat1)
        let (sbet2, cbet2) = reducedLatitude(lat2)
        let points = CanonicalPair(sbet1: sbet1, cbet1: cbet1, sbet2: sbet2, cbet2: cbet2,
                                   dn1: (1 + secondEccentricitySquared * sbet1 * sbet1).squareRoot(),
                                   dn2: (1 + secondEccentricitySquared * sbet2 * sbet2).squareRoot())

        var solution: InverseSolution?
        if lat1 == -90 || slam12 == 0 {
            solution = meridionalSolution(points, sinLambda12: slam12, cosLambda12: clam12)
        }
        if solution == nil && sbet1 == 0 && (flattening <= 0 || lam12 <= .pi * (1 - flattening)) {
            solution = InverseSolution(distance: equatorialRadius * lam12,
                                       sinAzimuth1: 1, cosAzimuth1: 0, sinAzimuth2: 1, cosAzimuth2: 0)
        }
        var s = solution ?? newtonSolution(points, lambda12: lam12, sinLambda12: slam12, cosLambda12: clam12)

        // Undo the canonical form. Reversing the line adds π to both azimuths and the mirror in
        // longitude that keeps λ₁₂ positive negates their sines: together, the cosines flip.
        if swapped {
            (s.sinAzimuth1, s.sinAzimuth2) = (s.sinAzimuth2, s.sinAzimuth1)
            (s.cosAzimuth1, s.cosAzimuth2) = (-s.cosAzimuth2, -s.cosAzimuth1)
        }
        s.sinAzimuth1 *= lonSign; s.sinAzimuth2 *= lonSign
        s.cosAzimuth1 *= latSign; s.cosAzimuth2 *= latSign
        return s
    }

    /// Reduced latitudes of the two points in canonical form (β₁ ≤ 0, |β₂| ≤ |β₁|).
    @usableFromInline
    struct CanonicalPair: Sendable {
        var sbet1: Double, cbet1: Double, sbet2: Double, cbet2: Double
        /// `√(1 + e′² sin²β)` at each point.
        var dn1: Double, dn2: Double
    }

    /// Solution along the meridian (α₁ = λ₁₂ ∈ {0, π}, α₂ = 0), or nil when the meridian
    /// is longer than another geodesic (the reduced length turns negative past a conjugate point).
    func meridionalSolution(_ p: CanonicalPair, sinLambda12: Double, cosLambda12: Double) -> InverseSolution? {
        let salp1 = sinLambda12, calp1 = cosLambda12
        let (ssig1, csig1) = AngleMath.normalized(p.sbet1, calp1 * p.cbet1)
        let (ssig2, csig2) = AngleMath.normalized(p.sbet2, p.cbet2)
        let sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        let calp0 = hypot(calp1, salp1 * p.sbet1)
        let l = lengths(epsilon: epsilon(cosAlpha0: calp0), sigma12: sig12,
                        ssig1: ssig1, csig1: csig1, dn1: p.dn1, ssig2: ssig2, csig2: csig2, dn2: p.dn2)
        guard sig12 < 1 || l.reducedLength >= 0 else { return nil }
        return InverseSolution(distance: max(0, polarRadius * l.distance),
                               sinAzimuth1: salp1, cosAzimuth1: calp1, sinAzimuth2: 0, cosAzimuth2: 1)
    }
}
