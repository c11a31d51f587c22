import Foundation

/// A constant-velocity Kalman filter over fixes, for use online: each fix comes out
/// with a smoothed position, speed and course.
///
/// The model is a position and velocity in local metres with white-noise
/// acceleration. ``processNoise`` is the acceleration's spectral density in m²/s³:
/// larger values follow turns and braking faster, smaller values smooth more
/// (about 0.5 for walking, 2 for cycling, 5–10 for driving). The measurement noise
/// of each fix comes from its ``Fix/horizontalAccuracy`` (a 68% radius, so the
/// per-axis σ is the radius / 1.51); fixes without one use
/// ``defaultHorizontalAccuracy``. Each output fix's `horizontalAccuracy` is the
/// filter's own 68% radius; its `speed` (m/s) and `course` (degrees) come from the
/// velocity estimate. Altitude and the other fields pass through. Fixes whose
/// timestamp does not advance update the position without moving time on.
///
/// For a recorded track, ``KalmanSmoother`` adds the backward (RTS) pass and is
/// more accurate. Feed it fixes already gated by ``SpeedOutlierFilter``: a Kalman
/// filter weighs an outlier by its claimed accuracy and would be pulled towards it.
/// A fix flagged ``Fix/impliesImpossibleSpeed`` (the gate's ``SpeedOutlierFilter/Mode/flag``
/// mode) passes through unchanged and leaves the filter's state as it was.
///
/// ```swift
/// var kalman = KalmanFilter(processNoise: 2)
/// let smooth = kalman.process(fix)   // never nil
/// ```
///
/// A `Sendable` value type.
public struct KalmanFilter: FixFilter {
    /// Spectral density of the acceleration noise, m²/s³.
    public var processNoise: Double
    /// Accuracy radius, metres, assumed for fixes that report none.
    public var defaultHorizontalAccuracy: Double
    /// Standard deviation of the unknown initial speed, m/s.
    public var initialSpeedUncertainty: Double

    private var state: KalmanState?
    private var lastTime: Date?

    /// Makes a filter; see the properties for the units and meaning of each parameter.
    public init(processNoise: Double = 1, defaultHorizontalAccuracy: Double = 10, initialSpeedUncertainty: Double = 10) {
        self.processNoise = processNoise
        self.defaultHorizontalAccuracy = defaultHorizontalAccuracy
        self.initialSpeedUncertainty = initialSpeedUncertainty
        precondition(hasValidSettings, "noise parameters must be positive")
    }

    /// Whether the noise parameters are usable: both noises positive, the speed uncertainty not negative.
    var hasValidSettings: Bool {
        processNoise > 0 && defaultHorizontalAccuracy > 0 && initialSpeedUncertainty >= 0
    }

    /// Folds `fix` into the estimate and returns it with the filtered values; never nil.
    ///
    /// A fix flagged ``Fix/impliesImpossibleSpeed`` is returned as it is, and the estimate is not changed.
    public mutating func process(_ fix: Fix) -> Fix? {
        if fix.impliesImpossibleSpeed { return fix }
        let r = KalmanState.measurementVariance(fix, default: defaultHorizontalAccuracy)
        guard var current = state, let last = lastTime else {
            let first = KalmanState(first: fix, measurementVariance: r,
                                    velocityVariance: initialSpeedUncertainty * initialSpeedUncertainty)
            state = first
            lastTime = fix.timestamp
            return first.applied(to: fix)
        }
        current.predict(dt: fix.timestamp.timeIntervalSince(last), processNoise: processNoise)
        current.update(measurement: fix.coordinate, variance: r)
        state = current
        lastTime = max(last, fix.timestamp)
        return current.applied(to: fix)
    }
}
