import Foundation

/// Summary figures of a recorded track: distance, time, speed, elevation and bounds.
///
/// Compute it from a whole track or document, or feed points one by one to a
/// ``TrackStatisticsAccumulator`` (constant memory, for streaming readers):
///
/// ```swift
/// let stats = TrackStatistics(track: track)
/// print(stats.distance2D / 1000, "km in", stats.movingTime ?? 0, "s moving")
/// ```
///
/// ## Definitions
///
/// - A **hop** joins two consecutive points of the same segment. Nothing bridges
///   the gap between segments: not distance, time, speed nor elevation change.
/// - Hop lengths are on the WGS-84 ellipsoid (``LocalApproximation/segmentDistance(_:_:)``):
///   the local approximation for hops up to 10 km with both ends within 80° of the equator
///   (relative error under 5 × 10⁻⁶), the ``Geodesic`` otherwise.
/// - An **interval** joins two consecutive *timed* points of a segment whose
///   timestamps increase. Points without a time, or whose time equals or precedes
///   the previous accepted time (duplicates, clock jumps backwards), are still
///   counted for distance, but their time is ignored: their hops fold into the
///   interval that ends at the next accepted timed point.
/// - Time fields (times, duration, moving and stopped time) are nil when no point has
///   a time; the speed fields are nil when no segment has an interval (for example
///   when every point carries the same time).
///
/// `TrackStatistics` is a `Sendable` value type.
public struct TrackStatistics: Hashable, Sendable {
    /// Number of points, in all segments.
    public var pointCount: Int
    /// Number of segments that held at least one point.
    public var segmentCount: Int
    /// Sum of hop lengths on the ellipsoid, metres, ignoring elevation.
    public var distance2D: Double
    /// Sum of hop lengths including the raw elevation difference, metres:
    /// `√(d² + Δh²)` per hop, or the 2D length `d` when either point lacks an elevation.
    public var distance3D: Double
    /// Time of the first accepted timed point, in input order.
    public var startTime: Date?
    /// Time of the last accepted timed point, in input order.
    public var endTime: Date?
    /// Recorded time, seconds: the sum over segments of the time from each segment's
    /// first to its last accepted timed point. Gaps between segments are excluded, so
    /// `endTime - startTime` (elapsed time) can be larger. Always `movingTime + stoppedTime`.
    public var duration: TimeInterval?
    /// Seconds spent in intervals whose smoothed speed is at least
    /// ``Options/stoppedSpeedThreshold``.
    ///
    /// The smoothed speed of an interval is the median of the raw speeds (distance
    /// over time) of the five intervals centred on it, within its segment. The first
    /// and last two intervals of a segment use the first and last full window; a
    /// segment with fewer than five intervals uses the median of all of them.
    ///
    /// The median removes isolated jumps, not steady jitter: a receiver that wanders
    /// several metres every second while standing still looks like slow movement.
    /// Run such fixes through ``KalmanSmoother`` first.
    public var movingTime: TimeInterval?
    /// Seconds spent in intervals whose smoothed speed is below the threshold.
    public var stoppedTime: TimeInterval?
    /// Distance of the moving intervals divided by ``movingTime``, metres per second;
    /// 0 when the track never moved, nil when no segment has an interval.
    public var averageMovingSpeed: Double?
    /// The largest smoothed interval speed (see ``movingTime``), metres per second.
    ///
    /// Because it is the median over five consecutive intervals, a single wrong
    /// point (which spoils two intervals) cannot set the maximum: a speed must be
    /// sustained over at least three of five intervals to count. This is in the
    /// spirit of gpxpy, which drops the top 5% of speeds instead, but needs no memory.
    public var maximumSpeed: Double?
    /// Total climb, metres, after spike removal and hysteresis (see
    /// ``Options/elevationThreshold``); nil when no point has an elevation.
    ///
    /// Within each segment, every elevation except the first and last is first
    /// replaced by the median of itself and its two neighbours, which removes
    /// single-point spikes. The result is then followed in one direction until it
    /// turns back by more than the threshold from the highest (or lowest) value
    /// reached; the finished climb, from the previous turning point to that extreme,
    /// is counted in full. Wiggles smaller than the threshold count nothing, so GPS
    /// elevation noise does not inflate the total as it does with a plain sum of
    /// differences. (gpxpy sums the differences of a 3-point weighted average, which
    /// still counts most noise and 40% of every spike; on the gpxpy and togeojson
    /// sample tracks our totals are 1–13% lower than gpxpy's.)
    public var elevationGain: Double?
    /// Total descent, metres, with the same smoothing as ``elevationGain``.
    public var elevationLoss: Double?
    /// Lowest raw elevation of any point, metres.
    public var minimumElevation: Double?
    /// Highest raw elevation of any point, metres.
    public var maximumElevation: Double?
    /// The smallest box holding every point; it crosses the antimeridian
    /// (`minLongitude > maxLongitude`) when that box is narrower. Nil without points.
    public var bounds: BoundingBox?

    /// The statistics of every segment of `track`.
    public init(track: Track, options: Options = Options()) {
        var accumulator = TrackStatisticsAccumulator(options: options)
        accumulator.add(track)
        self = accumulator.statistics
    }

    /// The statistics of every segment of every track of `document`; routes and waypoints are ignored.
    public init(document: GPXDocument, options: Options = Options()) {
        var accumulator = TrackStatisticsAccumulator(options: options)
        for track in document.tracks { accumulator.add(track) }
        self = accumulator.statistics
    }

    /// The statistics of `points` taken as one segment.
    public init(points: some Sequence<Waypoint>, options: Options = Options()) {
        var accumulator = TrackStatisticsAccumulator(options: options)
        accumulator.beginSegment()
        for point in points { accumulator.add(point) }
        self = accumulator.statistics
    }

    init(pointCount: Int, segmentCount: Int, distance2D: Double, distance3D: Double) {
        self.pointCount = pointCount
        self.segmentCount = segmentCount
        self.distance2D = distance2D
        self.distance3D = distance3D
    }
}

extension TrackStatistics {
    /// Thresholds of the statistics' smoothing. A `Sendable` value type.
    public struct Options: Hashable, Sendable {
        /// Smoothed speed, metres per second, below which an interval counts as stopped.
        ///
        /// Default 0.5 m/s (1.8 km/h): well under a slow walk, above the drift of a
        /// device standing still once smoothed. gpxpy uses 1 km/h on raw speeds.
        public var stoppedSpeedThreshold: Double
        /// Hysteresis band, metres, for ``TrackStatistics/elevationGain`` and loss.
        ///
        /// Default 5 m, about the size of GPS elevation noise; use 1–2 m for a
        /// barometric altimeter. 0 sums every rise and fall.
        public var elevationThreshold: Double

        /// Makes options; see each property for its meaning and default.
        public init(stoppedSpeedThreshold: Double = 0.5, elevationThreshold: Double = 5) {
            precondition(stoppedSpeedThreshold >= 0 && elevationThreshold >= 0, "thresholds must be non-negative")
            self.stoppedSpeedThreshold = stoppedSpeedThreshold
            self.elevationThreshold = elevationThreshold
        }
    }
}
