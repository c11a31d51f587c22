import Foundation

/// The constant-velocity model shared by ``KalmanFilter`` and ``KalmanSmoother`` (internal).
///
/// The state is a position (kept as a coordinate, so the model works anywhere on
/// Earth) and an east/north velocity in m/s. Offsets are taken in a tangent plane
/// at the current estimate, so every difference the filter handles is metres-small.
/// East and north have the same dynamics and the same isotropic measurement noise,
/// so they share one 2×2 covariance `[pp pv; pv vv]` (m², m²/s, m²/s²).
struct KalmanState: Sendable {
    var position: Coordinate
    var velocityEast: Double
    var velocityNorth: Double
    var pp: Double
    var pv: Double
    var vv: Double

    /// For a circular normal error, 68% of fixes fall within this many per-axis σ.
    static let radius68PerSigma = 1.5096

    /// The per-axis variance, m², of a fix reported with the given 68% radius.
    static func measurementVariance(_ fix: Fix, default defaultAccuracy: Double) -> Double {
        let accuracy = fix.horizontalAccuracy.flatMap { $0 > 0 ? $0 : nil } ?? defaultAccuracy
        let sigma = accuracy / radius68PerSigma
        return sigma * sigma
    }

    /// A state at the first fix with zero velocity and velocity variance `velocityVariance` (m²/s²).
    init(first fix: Fix, measurementVariance r: Double, velocityVariance: Double) {
        position = fix.coordinate
        velocityEast = 0
        velocityNorth = 0
        pp = r
        pv = 0
        vv = velocityVariance
    }

    /// Moves the state `dt` seconds ahead with white-noise acceleration of spectral density `q` (m²/s³).
    mutating func predict(dt: Double, processNoise q: Double) {
        guard dt > 0 else { return }
        let plane = LocalProjection(origin: position)
        position = plane.coordinate(east: velocityEast * dt, north: velocityNorth * dt)
        let dt2 = dt * dt
        pp += 2 * dt * pv + dt2 * vv + q * dt2 * dt / 3
        pv += dt * vv + q * dt2 / 2
        vv += q * dt
    }

    /// Folds in a measured position with per-axis variance `r` (m²).
    mutating func update(measurement: Coordinate, variance r: Double) {
        let plane = LocalProjection(origin: position)
        let z = plane.project(measurement)
        let s = pp + r
        let kp = pp / s, kv = pv / s
        position = plane.coordinate(east: kp * z.east, north: kp * z.north)
        velocityEast += kv * z.east
        velocityNorth += kv * z.north
        let newPP = (1 - kp) * pp, newPV = (1 - kp) * pv, newVV = vv - kv * pv
        pp = newPP
        pv = newPV
        vv = newVV
    }

    /// `fix` with this state's position, speed, course and a 68% accuracy radius.
    func applied(to fix: Fix) -> Fix {
        var out = fix
        out.coordinate = position
        out.horizontalAccuracy = Self.radius68PerSigma * max(pp, 0).squareRoot()
        let speed = (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot()
        out.speed = speed
        if speed > 0 {
            let degrees = atan2(velocityEast, velocityNorth) * 180 / .pi
            out.course = degrees < 0 ? degrees + 360 : degrees
        } else {
            out.course = nil
        }
        return out
    }
}
