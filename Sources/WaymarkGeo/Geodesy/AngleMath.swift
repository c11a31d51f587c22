import Foundation

/// Small helpers for angles in degrees, shared by the geodesy code.
///
/// Everything here is a pure function on `Double`s; safe from any thread.
@usableFromInline
enum AngleMath {
    /// Degrees to radians.
    @usableFromInline static let radiansPerDegree = Double.pi / 180

    /// A positive number so small that its square is still a normal `Double`.
    ///
    /// Used in place of an exact zero cosine at the poles so that a pole is treated as the
    /// limit of nearby points (the direction of approach is given by the longitude).
    @usableFromInline static let tiny = Double.leastNormalMagnitude.squareRoot()

    /// Sine and cosine of an angle in degrees, exact at multiples of 90° and odd in `degrees`.
    ///
    /// The argument is reduced exactly to [-45°, 45°] before converting to radians, so
    /// `sinCos(degrees: 90)` is exactly `(1, 0)` and `sinCos(degrees: 180)` is `(0, -1)`.
    @inlinable
    static func sinCos(degrees: Double) -> (sin: Double, cos: Double) {
        var r = remainder(degrees, 360)              // exact, in [-180, 180]
        let quadrant = Int((r / 90).rounded())        // -2 ... 2
        r -= Double(quadrant) * 90                   // exact, in [-45, 45]
        let x = r * radiansPerDegree
        let s = sin(x), c = cos(x)
        switch quadrant & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    /// The angle of the vector `(x, y)` in degrees, in (-180, 180].
    @inlinable
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        let d = atan2(y, x) / radiansPerDegree
        return d == -180 ? 180 : d + 0   // + 0 turns -0 into 0
    }

    /// `lon2 - lon1` wrapped into [-180, 180], computed without loss for nearby values.
    @inlinable
    static func longitudeDifference(_ lon1: Double, _ lon2: Double) -> Double {
        remainder(lon2 - lon1, 360)
    }

    /// Scales `(s, c)` to unit length.
    @inlinable
    static func normalized(_ s: Double, _ c: Double) -> (Double, Double) {
        let h = (s * s + c * c).squareRoot()
        return (s / h, c / h)
    }
}
