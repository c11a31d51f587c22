/// The six coefficients of a trigonometric series `Σ c_l sin(2lσ)`, l = 1…6.
///
/// Karney's series for the geodesic integrals (distance, reduced length, longitude) and for
/// the inverse of the distance series all have this shape. A fixed-size value type, so
/// evaluating a series never allocates.
@usableFromInline
struct SineSeries: Sendable {
    @usableFromInline var c1, c2, c3, c4, c5, c6: Double

    @inlinable
    init(_ c1: Double, _ c2: Double, _ c3: Double, _ c4: Double, _ c5: Double, _ c6: Double) {
        (self.c1, self.c2, self.c3, self.c4, self.c5, self.c6) = (c1, c2, c3, c4, c5, c6)
    }

    /// `Σ c_l sin(2lσ)` for a unit vector `(sinσ, cosσ)`, by Clenshaw summation.
    ///
    /// The recurrence `b_l = c_l + 2cos(2σ)·b_{l+1} − b_{l+2}` runs from l = 6 down to 1,
    /// and the sum is `b_1·sin(2σ)`. This needs one sine and cosine (already given) instead of six.
    @inlinable
    func sum(sin s: Double, cos c: Double) -> Double {
        let y = 2 * (c - s) * (c + s)   // 2 cos 2σ
        var b2 = 0.0, b1 = c6
        var t = c5 + y * b1 - b2; b2 = b1; b1 = t
        t = c4 + y * b1 - b2; b2 = b1; b1 = t
        t = c3 + y * b1 - b2; b2 = b1; b1 = t
        t = c2 + y * b1 - b2; b2 = b1; b1 = t
        t = c1 + y * b1 - b2
        return t * 2 * s * c              // b_1 · sin 2σ
    }
}

/// The series of Karney (2013) in the third flattening's companion ε, to sixth order.
///
/// With `k² = e'² cos²α₀` and `ε = (√(1+k²) − 1)/(√(1+k²) + 1)`:
/// - distance: `s/b = I₁(σ) = A₁(σ + Σ C₁ₗ sin 2lσ)` (eqs. 15, 17, 18);
/// - its inverse: `σ = τ + Σ C′₁ₗ sin 2lτ` with `τ = s/(b A₁)` (eqs. 20, 21);
/// - `I₂(σ) = A₂(σ + Σ C₂ₗ sin 2lσ)`, used for the reduced length (eqs. 41–43);
/// - longitude: `λ = ω − f sinα₀ I₃(σ)`, `I₃ = A₃(σ + Σ C₃ₗ sin 2lσ)` (eqs. 23–25), whose
///   coefficients depend on the third flattening n as well and are set up per ellipsoid.
///
/// Every series was checked against numerical quadrature of the defining integrals.
@usableFromInline
enum GeodesicSeries {
    /// `A₁ = (1 + ε²/4 + ε⁴/64 + ε⁶/256) / (1 − ε)`.
    @inlinable
    static func a1(_ e: Double) -> Double {
        let e2 = e * e
        return (1 + e2 * (1.0 / 4 + e2 * (1.0 / 64 + e2 / 256))) / (1 - e)
    }

    /// Coefficients `C₁ₗ` of the distance integral.
    @inlinable
    static func c1(_ e: Double) -> SineSeries {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e, e6 = e3 * e3
        return SineSeries(
            -e / 2 + 3 * e3 / 16 - e5 / 32,
            -e2 / 16 + e4 / 32 - 9 * e6 / 2048,
            -e3 / 48 + 3 * e5 / 256,
            -5 * e4 / 512 + 3 * e6 / 512,
            -7 * e5 / 1280,
            -7 * e6 / 2048)
    }

    /// Coefficients `C′₁ₗ` of the inverse of the distance series (σ from τ).
    @inlinable
    static func c1Inverse(_ e: Double) -> SineSeries {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e, e6 = e3 * e3
        return SineSeries(
            e / 2 - 9 * e3 / 32 + 205 * e5 / 1536,
            5 * e2 / 16 - 37 * e4 / 96 + 1335 * e6 / 4096,
            29 * e3 / 96 - 75 * e5 / 128,
            539 * e4 / 1536 - 2391 * e6 / 2560,
            3467 * e5 / 7680,
            38081 * e6 / 61440)
    }

    /// `A₂ = (1 − ε)(1 + ε²/4 + 9ε⁴/64 + 25ε⁶/256)`.
    @inlinable
    static func a2(_ e: Double) -> Double {
        let e2 = e * e
        return (1 - e) * (1 + e2 * (1.0 / 4 + e2 * (9.0 / 64 + e2 * 25 / 256)))
    }

    /// Coefficients `C₂ₗ` of the integral behind the reduced length.
    @inlinable
    static func c2(_ e: Double) -> SineSeries {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e, e6 = e3 * e3
        return SineSeries(
            e / 2 + e3 / 16 + e5 / 32,
            3 * e2 / 16 + e4 / 32 + 35 * e6 / 2048,
            5 * e3 / 48 + 5 * e5 / 256,
            35 * e4 / 512 + 7 * e6 / 512,
            63 * e5 / 1280,
            77 * e6 / 2048)
    }
}

/// The longitude series `A₃`, `C₃ₗ` of one ellipsoid, as polynomials in ε whose
/// coefficients depend on the third flattening n (computed once per ellipsoid).
@usableFromInline
struct LongitudeSeries: Sendable {
    // A₃ = 1 − a31 ε − a32 ε² − a33 ε³ − a34 ε⁴ − a35 ε⁵
    @usableFromInline let a31, a32, a33, a34, a35: Double
    // C₃ₗ = Σ_j c3lj ε^j
    @usableFromInline let c311, c312, c313, c314, c315: Double
    @usableFromInline let c322, c323, c324, c325: Double
    @usableFromInline let c333, c334, c335: Double
    @usableFromInline let c344, c345: Double
    @usableFromInline let c355: Double

    init(thirdFlattening n: Double) {
        let n2 = n * n
        a31 = 1.0 / 2 - n / 2
        a32 = 1.0 / 4 + n / 8 - 3 * n2 / 8
        a33 = 1.0 / 16 + 3 * n / 16 + n2 / 16
        a34 = 3.0 / 64 + n / 32
        a35 = 3.0 / 128
        c311 = 1.0 / 4 - n / 4
        c312 = 1.0 / 8 - n2 / 8
        c313 = 3.0 / 64 + 3 * n / 64 - n2 / 64
        c314 = 5.0 / 128 + n / 64
        c315 = 3.0 / 128
        c322 = 1.0 / 16 - 3 * n / 32 + n2 / 32
        c323 = 3.0 / 64 - n / 32 - 3 * n2 / 64
        c324 = 3.0 / 128 + n / 128
        c325 = 5.0 / 256
        c333 = 5.0 / 192 - 3 * n / 64 + 5 * n2 / 192
        c334 = 3.0 / 128 - 5 * n / 192
        c335 = 7.0 / 512
        c344 = 7.0 / 512 - 7 * n / 256
        c345 = 7.0 / 512
        c355 = 21.0 / 2560
    }

    /// `A₃(ε)`.
    @inlinable
    func a3(_ e: Double) -> Double {
        1 - e * (a31 + e * (a32 + e * (a33 + e * (a34 + e * a35))))
    }

    /// `C₃ₗ(ε)`, l = 1…5 (the sixth is zero at this order).
    @inlinable
    func c3(_ e: Double) -> SineSeries {
        let e2 = e * e, e3 = e2 * e, e4 = e2 * e2, e5 = e4 * e
        return SineSeries(
            e * (c311 + e * (c312 + e * (c313 + e * (c314 + e * c315)))),
            e2 * (c322 + e * (c323 + e * (c324 + e * c325))),
            e3 * (c333 + e * (c334 + e * c335)),
            e4 * (c344 + e * c345),
            e5 * c355,
            0)
    }
}
