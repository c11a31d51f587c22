import Foundation

extension Geodesic {
    /// The direct problem on the auxiliary sphere (Karney 2013, section 3).
    ///
    /// σ₂ follows from the distance by inverting the distance series (eq. 20), β₂ and α₂ from
    /// spherical trigonometry, and the longitude from ω₂ − ω₁ corrected by the I₃ series.
    @usableFromInline
    func solveDirect(latitude1: Double, longitude1: Double, azimuth1: Double, distance: Double) -> Direct {
        let (salp1, calp1) = AngleMath.sinCos(degrees: azimuth1)
        let (sbet1, cbet1) = reducedLatitude(latitude1)
        // α₀, the azimuth where the geodesic crosses the equator.
        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)
        // σ₁ and ω₁ measured from that crossing; heading due east on the equator, σ₁ = 0.
        let somg1 = salp0 * sbet1
        let comg1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let (ssig1, csig1) = AngleMath.normalized(sbet1, comg1)
        let sig1 = atan2(ssig1, csig1)

        let e = epsilon(cosAlpha0: calp0)
        let a1 = GeodesicSeries.a1(e)
        let b11 = GeodesicSeries.c1(e).sum(sin: ssig1, cos: csig1)
        // τ = I₁(σ)/A₁ = σ + B₁(σ); advance by s/(b A₁) and invert the series.
        let tau12 = distance / (polarRadius * a1)
        let tau2 = sig1 + b11 + tau12
        let sig12 = tau12 + b11 + GeodesicSeries.c1Inverse(e).sum(sin: sin(tau2), cos: cos(tau2))
        let sig2 = sig1 + sig12
        let ssig2 = sin(sig2)
        var csig2 = cos(sig2)

        let sbet2 = calp0 * ssig2
        var cbet2 = hypot(salp0, calp0 * csig2)
        if cbet2 == 0 { cbet2 = AngleMath.tiny; csig2 = AngleMath.tiny }   // arrived exactly at a pole
        let salp2 = salp0, calp2 = calp0 * csig2

        // ω₁₂ from the two unnormalised (sin ω, cos ω) pairs, then λ₁₂ = ω₁₂ − f sinα₀ I₃.
        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let c3 = longitudeSeries.c3(e)
        let b31 = c3.sum(sin: ssig2, cos: csig2) - c3.sum(sin: ssig1, cos: csig1)
        let lam12 = omg12 - flattening * salp0 * longitudeSeries.a3(e) * (sig12 + b31)

        let latitude2 = min(90, max(-90, AngleMath.atan2Degrees(sbet2, (1 - flattening) * cbet2)))
        let longitude2 = Coordinate.normalizedLongitude(longitude1 + lam12 / AngleMath.radiansPerDegree)
        return Direct(destination: Coordinate(uncheckedLatitude: latitude2, longitude: longitude2),
                      finalAzimuth: AngleMath.atan2Degrees(salp2, calp2))
    }
}
