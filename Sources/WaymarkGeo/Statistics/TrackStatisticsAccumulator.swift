import Foundation

/// Computes ``TrackStatistics`` point by point, in constant memory.
///
/// Call ``beginSegment()`` at each segment start (the first ``add(_:elevation:time:)`` begins
/// one implicitly), ``add(_:elevation:time:)`` for every point in order, and read
/// ``statistics`` at any time. Per point it does one distance, a few comparisons and,
/// for timed points, a median of five numbers; it never allocates after `init`.
///
/// ```swift
/// var accumulator = TrackStatisticsAccumulator()
/// for event in reader {            // e.g. a streaming GPX reader
///     switch event {
///     case .segmentStart: accumulator.beginSegment()
///     case .trackPoint(let p): accumulator.add(p)
///     default: break
///     }
/// }
/// let stats = accumulator.statistics
/// ```
///
/// A `Sendable` value type; use one accumulator from one task at a time.
public struct TrackStatisticsAccumulator: Sendable {
    /// The thresholds in use.
    public let options: TrackStatistics.Options

    private var pointCount = 0
    private var segmentCount = 0
    private var distance2D = 0.0
    private var distance3D = 0.0
    private var bounds = BoundsAccumulator()
    private var minElevation = Double.infinity
    private var maxElevation = -Double.infinity
    private var elevation: ElevationHysteresis
    private var speed: SpeedWindow
    private var startTime: Double?
    private var endTime: Double?
    private var duration = 0.0
    private var intervalCount = 0

    // Per segment.
    private var inSegment = false
    private var segmentHasPoint = false
    private var previous: Coordinate?
    private var previousElevation: Double?
    private var lastTime: Double?
    private var pendingDistance = 0.0

    /// Makes an empty accumulator.
    public init(options: TrackStatistics.Options = TrackStatistics.Options()) {
        self.options = options
        elevation = ElevationHysteresis(threshold: options.elevationThreshold)
        speed = SpeedWindow(movingThreshold: options.stoppedSpeedThreshold)
    }

    /// Ends the current segment, if any, and starts a new one: the next point is not joined to the last.
    public mutating func beginSegment() {
        endSegment()
        inSegment = true
    }

    /// Ends the current segment; a later point starts a new one. Calling it twice is harmless.
    public mutating func endSegment() {
        guard inSegment else { return }
        speed.endSegment()
        elevation.endSegment()
        if segmentHasPoint { segmentCount += 1 }
        inSegment = false
        segmentHasPoint = false
        previous = nil
        previousElevation = nil
        lastTime = nil
        pendingDistance = 0
    }

    /// Adds every segment of `track`, each as its own segment.
    public mutating func add(_ track: Track) {
        for segment in track.segments {
            beginSegment()
            for point in segment.points { add(point) }
            endSegment()
        }
    }

    /// Adds the next point of the current segment (its coordinate, elevation and time).
    @inlinable
    public mutating func add(_ point: Waypoint) {
        add(point.coordinate, elevation: point.elevation, time: point.time)
    }

    /// Adds `fix` as the next point of the current segment (its coordinate, altitude and timestamp).
    @inlinable
    public mutating func add(_ fix: Fix) {
        add(fix.coordinate, elevation: fix.altitude, time: fix.timestamp)
    }

    /// Adds the next point of the current segment. `elevation` is in metres.
    public mutating func add(_ coordinate: Coordinate, elevation pointElevation: Double?, time: Date?) {
        if !inSegment { inSegment = true }
        pointCount += 1
        segmentHasPoint = true
        bounds.add(coordinate)
        if let e = pointElevation {
            minElevation = min(minElevation, e)
            maxElevation = max(maxElevation, e)
            elevation.add(e)
        }
        if let p = previous {
            let d = LocalApproximation.segmentDistance(p, coordinate)
            distance2D += d
            if let e = pointElevation, let pe = previousElevation {
                let dh = e - pe
                distance3D += (d * d + dh * dh).squareRoot()
            } else {
                distance3D += d
            }
            pendingDistance += d
        }
        previous = coordinate
        previousElevation = pointElevation
        guard let time else { return }
        let t = time.timeIntervalSinceReferenceDate
        if let last = lastTime {
            let dt = t - last
            guard dt > 0 else { return }
            speed.push(distance: pendingDistance, duration: dt)
            duration += dt
            intervalCount += 1
        }
        if startTime == nil { startTime = t }
        endTime = t
        lastTime = t
        pendingDistance = 0
    }

    /// The statistics of everything added so far (the open segment counts as ended).
    public var statistics: TrackStatistics {
        var copy = self
        copy.endSegment()
        return copy.makeStatistics()
    }

    private func makeStatistics() -> TrackStatistics {
        var s = TrackStatistics(pointCount: pointCount, segmentCount: segmentCount,
                                distance2D: distance2D, distance3D: distance3D)
        s.bounds = bounds.box
        s.startTime = startTime.map(Date.init(timeIntervalSinceReferenceDate:))
        s.endTime = endTime.map(Date.init(timeIntervalSinceReferenceDate:))
        if minElevation <= maxElevation {
            s.minimumElevation = minElevation
            s.maximumElevation = maxElevation
            s.elevationGain = elevation.gain
            s.elevationLoss = elevation.loss
        }
        if startTime != nil {
            s.duration = duration
            s.movingTime = speed.movingTime
            s.stoppedTime = speed.stoppedTime
        }
        if intervalCount > 0 {
            s.averageMovingSpeed = speed.movingTime > 0 ? speed.movingDistance / speed.movingTime : 0
            s.maximumSpeed = speed.maximumSpeed
        }
        return s
    }
}
