import Foundation

extension Geodesic {
    /// One geodesic leaving point 1 with a trial azimuth α₁, evaluated at the latitude of point 2.
    struct Trial {
        /// λ₁₂(α₁) − λ₁₂ wanted, radians.
        var lambdaError: Double
        /// dλ₁₂/dα₁ (Karney eqs. 46–47).
        var derivative: Double
        /// s₁₂ / b.
        var distance: Double
        var sinAlpha2: Double, cosAlpha2: Double
    }

    /// Finds α₁ with λ₁₂(α₁) equal to the wanted longitude difference, then the distance.
    func newtonSolution(_ p: CanonicalPair, lambda12: Double,
                        sinLambda12: Double, cosLambda12: Double) -> InverseSolution {
        var alpha1 = startingAzimuth(p, lambda12: lambda12)
        var low = 0.0, high = Double.pi
        var trial = evaluate(p, alpha1: alpha1, sinLambda12: sinLambda12, cosLambda12: cosLambda12)
        // Newton converges in 2–4 steps from the starting guesses; bisection needs at most ~55
        // steps to shrink [0, π] to a rounding error, so the loop always ends well before this.
        for _ in 0..<80 {
            let v = trial.lambdaError
            if abs(v) <= 2 * Double.ulpOfOne { break }
            if v > 0 { high = min(high, alpha1) } else { low = max(low, alpha1) }
            var next = alpha1 - v / trial.derivative
            if !(next > low && next < high) { next = (low + high) / 2 }
            if next == alpha1 || high - low <= 2 * Double.ulpOfOne { break }
            alpha1 = next
            trial = evaluate(p, alpha1: alpha1, sinLambda12: sinLambda12, cosLambda12: cosLambda12)
        }
        let (salp2, calp2) = AngleMath.normalized(trial.sinAlpha2, trial.cosAlpha2)
        return InverseSolution(distance: polarRadius * trial.distance,
                               sinAzimuth1: sin(alpha1), cosAzimuth1: cos(alpha1),
                               sinAzimuth2: salp2, cosAzimuth2: calp2)
    }

    /// Evaluates λ₁₂, its derivative and the distance for the geodesic with azimuth α₁ at point 1.
    func evaluate(_ p: CanonicalPair, alpha1: Double, sinLambda12: Double, cosLambda12: Double) -> Trial {
        let salp1 = sin(alpha1), calp1 = cos(alpha1)
        let salp0 = salp1 * p.cbet1
        let calp0 = hypot(calp1, salp1 * p.sbet1)
        // sinα₂ cosβ₂ = sinα₀ (Clairaut); cosα₂ ≥ 0 in canonical form (eq. 45).
        let salp2 = p.cbet2 != p.cbet1 ? salp0 / p.cbet2 : salp1
        let calp2: Double
        if p.cbet2 != p.cbet1 || abs(p.sbet2) != -p.sbet1 {
            // cos²β₂ − cos²β₁ written as a product of sums, using whichever is better conditioned.
            let d = p.cbet1 < -p.sbet1 ? (p.cbet2 - p.cbet1) * (p.cbet2 + p.cbet1)
                                       : (p.sbet1 - p.sbet2) * (p.sbet1 + p.sbet2)
            calp2 = (calp1 * p.cbet1 * calp1 * p.cbet1 + d).squareRoot() / p.cbet2
        } else {
            calp2 = abs(calp1)
        }
        // σ and ω on the auxiliary sphere, from the equator crossing.
        let somg1 = salp0 * p.sbet1, comg1 = calp1 * p.cbet1
        let somg2 = salp0 * p.sbet2, comg2 = calp2 * p.cbet2
        let (ssig1, csig1) = AngleMath.normalized(p.sbet1, comg1)
        let (ssig2, csig2) = AngleMath.normalized(p.sbet2, comg2)
        let sig12 = atan2(max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        // ω₁₂ − λ₁₂ as one small angle: no wrap-around even when ω₁₂ exceeds π.
        let somg12 = comg1 * somg2 - somg1 * comg2
        let comg12 = comg1 * comg2 + somg1 * somg2
        let eta = atan2(somg12 * cosLambda12 - comg12 * sinLambda12, comg12 * cosLambda12 + somg12 * sinLambda12)

        let e = epsilon(cosAlpha0: calp0)
        let c3 = longitudeSeries.c3(e)
        let b31 = c3.sum(sin: ssig2, cos: csig2) - c3.sum(sin: ssig1, cos: csig1)
        let lambdaError = eta - flattening * salp0 * longitudeSeries.a3(e) * (sig12 + b31)

        let l = lengths(epsilon: e, sigma12: sig12, ssig1: ssig1, csig1: csig1, dn1: p.dn1,
                        ssig2: ssig2, csig2: csig2, dn2: p.dn2)
        let derivative = calp2 == 0
            ? -2 * (1 - flattening) * p.dn1 / p.sbet1
            : (1 - flattening) * l.reducedLength / (calp2 * p.cbet2)
        return Trial(lambdaError: lambdaError, derivative: derivative, distance: l.distance,
                     sinAlpha2: salp2, cosAlpha2: calp2)
    }

    /// A starting α₁ for Newton's method (Karney 2013, section 5).
    ///
    /// Short lines: the great circle on a sphere scaled by `w̄ = √(1 − e² cos²β̄)` (eq. 48).
    /// Nearly antipodal points: the astroid solution (eqs. 53–57), where geodesics from
    /// point 1 focus near its antipode. Otherwise: the great circle with ω₁₂ = λ₁₂.
    func startingAzimuth(_ p: CanonicalPair, lambda12: Double) -> Double {
        let sbet12 = p.sbet2 * p.cbet1 - p.cbet2 * p.sbet1      // sin(β₂ − β₁)
        let cbet12 = p.cbet2 * p.cbet1 + p.sbet2 * p.sbet1      // cos(β₂ − β₁)
        var omg12 = lambda12
        if cbet12 >= 0 && sbet12 < 0.5 && p.cbet2 * lambda12 < 0.5 {
            let cbetMean = (p.cbet1 + p.cbet2) / 2
            omg12 = lambda12 / (1 - eccentricitySquared * cbetMean * cbetMean).squareRoot()
        }
        let somg12 = sin(omg12), comg12 = cos(omg12)
        // The spherical azimuth: α₁ = arg(z₁), z₁ = (cosβ₁ sinβ₂ − sinβ₁ cosβ₂ cos ω, cosβ₂ sin ω).
        let y = p.cbet2 * somg12
        let x = comg12 >= 0
            ? sbet12 + p.cbet2 * p.sbet1 * somg12 * somg12 / (1 + comg12)
            : p.cbet1 * p.sbet2 - p.cbet2 * p.sbet1 * comg12
        let ssig12 = hypot(x, y)
        let csig12 = p.sbet1 * p.sbet2 + p.cbet1 * p.cbet2 * comg12
        let antipodalScale = 6 * abs(thirdFlattening) * .pi * p.cbet1 * p.cbet1
        guard csig12 < 0 && ssig12 < antipodalScale && flattening > 0 else {
            return atan2(y, x)
        }
        return astroidAzimuth(p, lambda12: lambda12)
    }

    /// The astroid estimate of α₁ for nearly antipodal points on an oblate ellipsoid.
    ///
    /// Near the antipode, in units of `f π cos²β₁` (eq. 53), the target sits at
    /// `x = (λ₁₂ − π)/(f π cosβ₁)`, `y = (β₁ + β₂)/(f π cos²β₁)`, and the geodesic through it
    /// has `sinα₁ = −x/(1 + μ)`, `cosα₁ = y/μ` with μ > 0 the root of
    /// `x²/(1 + μ)² + y²/μ² = 1` (equivalently the quartic of eq. 55).
    func astroidAzimuth(_ p: CanonicalPair, lambda12: Double) -> Double {
        let lambdaScale = flattening * .pi * p.cbet1
        let x = (lambda12 - .pi) / lambdaScale
        let y = (p.sbet1 * p.cbet2 + p.cbet1 * p.sbet2) / (lambdaScale * p.cbet1)
        if y == 0 && x * x <= 1 {
            return atan2(-x, -(1 - x * x).squareRoot())
        }
        let mu = Self.astroidRoot(x: x, y: y)
        return atan2(-x / (1 + mu), y / mu)
    }

    /// The positive root μ of `x²/(1 + μ)² + y²/μ² = 1` (needs y ≠ 0 or |x| > 1).
    ///
    /// The left side is convex and decreasing for μ > 0, so Newton's method started left of
    /// the root, at `max(|y|, |x| − 1)`, climbs to it monotonically without overshooting.
    static func astroidRoot(x: Double, y: Double) -> Double {
        let x2 = x * x, y2 = y * y
        var mu = max(abs(y), abs(x) - 1)
        for _ in 0..<100 {
            let u = 1 + mu
            let g = x2 / (u * u) + y2 / (mu * mu) - 1
            let dg = -2 * x2 / (u * u * u) - 2 * y2 / (mu * mu * mu)
            let next = mu - g / dg
            if !(next > mu) || next - mu <= mu * 1e-15 { return next.isFinite ? max(next, mu) : mu }
            mu = next
        }
        return mu
    }
}
