import Foundation

/// A constant-velocity Kalman smoother for recorded tracks: the forward
/// ``KalmanFilter`` followed by a Rauch–Tung–Striebel backward pass.
///
/// Every estimate then uses the fixes after it as well as before, which removes
/// the lag of the forward filter and roughly halves its error on a smooth path.
/// The model and parameters are those of ``KalmanFilter``. Memory is O(n).
///
/// ```swift
/// let smoothed = KalmanSmoother(processNoise: 2).smooth(recordedFixes)
/// ```
///
/// A `Sendable` value type; ``smooth(_:)`` is a pure function.
public struct KalmanSmoother: Sendable {
    /// Spectral density of the acceleration noise, m²/s³ (see ``KalmanFilter/processNoise``).
    public var processNoise: Double
    /// Accuracy radius, metres, assumed for fixes that report none.
    public var defaultHorizontalAccuracy: Double
    /// Standard deviation of the unknown initial speed, m/s.
    public var initialSpeedUncertainty: Double

    /// Makes a smoother; see the properties for units and meaning. The parameters are checked as
    /// ``KalmanFilter/init(processNoise:defaultHorizontalAccuracy:initialSpeedUncertainty:)`` checks them.
    public init(processNoise: Double = 1, defaultHorizontalAccuracy: Double = 10, initialSpeedUncertainty: Double = 10) {
        self.init(settingsOf: KalmanFilter(processNoise: processNoise, defaultHorizontalAccuracy: defaultHorizontalAccuracy,
                                           initialSpeedUncertainty: initialSpeedUncertainty))
    }

    /// A smoother with the noise settings of `filter`, so a track smoothed afterwards matches the
    /// one filtered live.
    public init(settingsOf filter: KalmanFilter) {
        precondition(filter.hasValidSettings, "noise parameters must be positive")
        processNoise = filter.processNoise
        defaultHorizontalAccuracy = filter.defaultHorizontalAccuracy
        initialSpeedUncertainty = filter.initialSpeedUncertainty
    }

    /// The fixes with smoothed positions, speeds, courses and accuracies, in the same order.
    ///
    /// Timestamps should be ascending (run ``TimestampOrderFilter`` first); a fix whose
    /// timestamp does not advance is treated as simultaneous with the previous one.
    public func smooth(_ fixes: [Fix]) -> [Fix] {
        guard let first = fixes.first else { return [] }
        var filtered: [KalmanState] = []
        var predicted: [KalmanState] = []   // predicted[k] is the prediction for fix k (k ≥ 1)
        var steps: [Double] = []
        filtered.reserveCapacity(fixes.count)
        predicted.reserveCapacity(fixes.count)
        steps.reserveCapacity(fixes.count)
        var state = KalmanState(first: first,
                                measurementVariance: KalmanState.measurementVariance(first, default: defaultHorizontalAccuracy),
                                velocityVariance: initialSpeedUncertainty * initialSpeedUncertainty)
        filtered.append(state)
        predicted.append(state)
        steps.append(0)
        var lastTime = first.timestamp
        for fix in fixes.dropFirst() {
            let dt = max(0, fix.timestamp.timeIntervalSince(lastTime))
            lastTime = max(lastTime, fix.timestamp)
            state.predict(dt: dt, processNoise: processNoise)
            predicted.append(state)
            steps.append(dt)
            state.update(measurement: fix.coordinate,
                         variance: KalmanState.measurementVariance(fix, default: defaultHorizontalAccuracy))
            filtered.append(state)
        }
        var smoothed = filtered
        if fixes.count > 1 {
            for k in stride(from: fixes.count - 2, through: 0, by: -1) {
                smoothed[k] = Self.backwardStep(filtered: filtered[k], predicted: predicted[k + 1],
                                                next: smoothed[k + 1], dt: steps[k + 1])
            }
        }
        return zip(fixes, smoothed).map { $1.applied(to: $0) }
    }

    /// One RTS step: corrects the filtered state at k with the smoothed state at k + 1.
    static func backwardStep(filtered f: KalmanState, predicted p: KalmanState, next s: KalmanState,
                             dt: Double) -> KalmanState {
        // C = Pf Fᵀ Pp⁻¹ with F = [1 dt; 0 1].
        let a = f.pp + dt * f.pv, b = f.pv          // first row of Pf Fᵀ
        let c = f.pv + dt * f.vv, d = f.vv          // second row
        let det = p.pp * p.vv - p.pv * p.pv
        guard det > 0 else { return f }
        let i00 = p.vv / det, i01 = -p.pv / det, i11 = p.pp / det
        let c00 = a * i00 + b * i01, c01 = a * i01 + b * i11
        let c10 = c * i00 + d * i01, c11 = c * i01 + d * i11
        // Differences of the smoothed and predicted states at k + 1, metres and m/s.
        let dz = LocalProjection(origin: p.position).project(s.position)
        let dve = s.velocityEast - p.velocityEast, dvn = s.velocityNorth - p.velocityNorth
        var out = f
        out.position = LocalProjection(origin: f.position).coordinate(east: c00 * dz.east + c01 * dve, north: c00 * dz.north + c01 * dvn)
        out.velocityEast += c10 * dz.east + c11 * dve
        out.velocityNorth += c10 * dz.north + c11 * dvn
        // Ps = Pf + C (Ps' - Pp) Cᵀ.
        let epp = s.pp - p.pp, epv = s.pv - p.pv, evv = s.vv - p.vv
        let m00 = c00 * epp + c01 * epv, m01 = c00 * epv + c01 * evv
        let m10 = c10 * epp + c11 * epv, m11 = c10 * epv + c11 * evv
        out.pp = f.pp + m00 * c00 + m01 * c01
        out.pv = f.pv + m00 * c10 + m01 * c11
        out.vv = f.vv + m10 * c10 + m11 * c11
        return out
    }
}
